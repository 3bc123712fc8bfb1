/**
 * Capability detection (suites/runner/capabilities.ts) probe by probe, one input changed at a time:
 * the request each probe sends, and how each answer (present, absent, refused, 404, server error,
 * malformed, no answer at all) and each declaration in the target config decides the capability.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_FLAG, PASSWORD_FEATURE, detectCapabilities, detectControl } from '../../suites/runner/capabilities.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { TransportError, type RawRequest } from '../../suites/target/types.js';
import type { Capabilities, Driver, TargetConfig } from '../../suites/types.js';
import { FAKE_BASE, FAMILY_PROBES, fakeTarget } from './fakes.js';

const CONFIDENTIAL = {
  clientId: 'conf-client',
  clientSecret: 'conf-secret-value-1',
  redirectUri: 'http://client.test/cb',
  scopes: ['api', 'read_user'],
};
const PUBLIC = { clientId: 'public-client', redirectUri: 'http://client.test/cb', scopes: ['read_user', 'openid'] };
const USER = { username: 'qa-bot', password: 'alice-password-1' };
const CONFIG: Partial<TargetConfig> = {
  applications: { confidential: CONFIDENTIAL, public: PUBLIC },
  user: USER,
  personalAccessToken: 'glpat-0123456789abcdef',
};
const basic = `Basic ${Buffer.from('conf-client:conf-secret-value-1').toString('base64')}`;

const CLOCK = 'POST /-/simulator/clock {"advanceSeconds":0}';
const SETTINGS = 'GET /-/simulator/settings';
const DEVICE_PUBLIC = 'POST /oauth/authorize_device client_id=public-client&scope=read_user';
const PASSWORD = `POST /oauth/token [${basic}] grant_type=password&username=qa-bot&password=alice-password-1`;
const PASSWORD_WITHOUT_CLIENT = 'POST /oauth/token grant_type=password&username=qa-bot&password=alice-password-1';

type Answer = (r: RawRequest) => Response;
const status =
  (code: number, body = '{}'): Answer =>
  () =>
    new Response(body, { status: code });
const unreachable: Answer = () => {
  throw new TransportError('connection refused', 'unreachable');
};

/** A target that answers every probe as a working simulator does, unless told otherwise per path. */
function target(answers: Record<string, Answer> = {}) {
  const sent: string[] = [];
  const handler = (r: RawRequest) => {
    const path = new URL(r.url).pathname;
    const auth = r.headers.get('authorization') ?? (r.headers.has('private-token') ? 'PRIVATE-TOKEN' : null);
    sent.push([r.method, path, ...(auth ? [`[${auth}]`] : []), ...(r.body !== undefined ? [r.body] : [])].join(' '));
    const given = answers[path];
    // The configured personal access token gets what the case says, else it reads what is there.
    if (path === '/api/v4/user' && r.headers.has('private-token')) {
      const anonymous = given?.(r);
      return (
        answers.pat?.(r) ?? (anonymous && anonymous.status !== 404 ? status(200)(r) : (anonymous ?? status(404)(r)))
      );
    }
    if (given) return given(r);
    if (path === '/-/simulator/config' || path === '/-/simulator/settings')
      return Response.json({ baseUrl: FAKE_BASE });
    if (path === '/-/simulator/clock') return Response.json({ now: 0 });
    if (path === '/oauth/authorize_device')
      return Response.json({ device_code: 'device-code-1', user_code: 'ABCD-EFGH', verification_uri: 'x' });
    if (path === '/oauth/token') return Response.json({ access_token: 'password-token-1', token_type: 'Bearer' });
    if (path === '/oauth/revoke') return Response.json({});
    return new Response('{}', { status: 404 });
  };
  const redactor = createRedactor();
  const http = createHttp(fakeTarget(handler), createRecorder(), redactor);
  return { http, sent, redactor };
}

const driver: Driver = {
  kind: 'simulator',
  authorize: () => Promise.reject(new Error('no authorization request in detection')),
  approveDevice: () => Promise.resolve(),
  denyDevice: () => Promise.resolve(),
  advanceClock: () => Promise.resolve(),
};

interface Case {
  answers?: Record<string, Answer>;
  config?: Partial<TargetConfig>;
  control?: boolean;
  flags?: Record<string, boolean>;
  passwordInForce?: boolean;
}

/** The capabilities the start-up finds by asking whether an endpoint is there at all. */
const FAMILIES = [
  'restApi',
  'tokenInfo',
  'userinfo',
  'introspection',
  'introspectionPath',
  'tokenEndpoint',
  'revocation',
  'deviceEndpoint',
  'keys',
  'authorizeEndpoint',
  'absentAnswers',
] as const;

async function detect({ answers, config = CONFIG, control = true, flags = {}, passwordInForce = true }: Case = {}) {
  const t = target(answers);
  const full: TargetConfig = { baseUrl: FAKE_BASE, ...config };
  const oauth = createOAuthFlows(t.http, driver, full, t.redactor, createRandom(1));
  const all = await detectCapabilities({ http: t.http, control, config: full, oauth, flags, passwordInForce });
  // The endpoint families are asked last, each the same way: their own tests below.
  const caps = { ...all } as Partial<Capabilities>;
  const families: Partial<Capabilities> = {};
  for (const name of FAMILIES) {
    (families as Record<string, unknown>)[name] = all[name];
    delete caps[name];
  }
  // The configured token's own probes (PRIVATE-TOKEN, then Bearer when that is refused) are their test's.
  const pat = `[Bearer ${full.personalAccessToken}]`;
  const sent = t.sent.splice(0).filter((line) => !line.includes('[PRIVATE-TOKEN]') && !line.includes(pat));
  // An empty form's body is the empty string after the path.
  expect(sent.slice(-FAMILY_PROBES.length).map((line) => line.trimEnd())).toEqual(FAMILY_PROBES);
  return { caps: caps as Omit<Capabilities, Families>, families, sent: sent.slice(0, -FAMILY_PROBES.length), oauth, t };
}

type Families = (typeof FAMILIES)[number];

const ALL: Omit<Capabilities, Families> = {
  control: true,
  clock: true,
  settings: true,
  device: true,
  passwordGrant: true,
  pat: true,
  writable: true,
  oidc: true,
};

describe('detectControl', () => {
  const control = async (answer?: Answer) => {
    const t = target(answer ? { '/-/simulator/config': answer } : {});
    const found = await detectControl(t.http);
    expect(t.sent).toEqual(['GET /-/simulator/config']);
    return found;
  };

  it('the control API answers its config: 200 with a JSON object', async () => {
    expect(await control()).toBe(true);
    expect(await control(status(200, '[]'))).toBe(true);
  });

  it('anything else is no control API: another status, a body that is no JSON object, no answer', async () => {
    expect(await control(status(404))).toBe(false);
    expect(await control(status(500))).toBe(false);
    expect(await control(status(201))).toBe(false);
    expect(await control(status(200, 'null'))).toBe(false);
    expect(await control(status(200, '5'))).toBe(false);
    expect(await control(status(200, '"config"'))).toBe(false);
    expect(await control(status(200, '<html>sign in</html>'))).toBe(false);
    expect(await control(unreachable)).toBe(false);
  });
});

describe('detectCapabilities', () => {
  it('a working simulator: every probe in order, each with its exact request, every capability', async () => {
    const { caps, sent } = await detect();
    expect(caps).toEqual(ALL);
    expect(sent).toEqual([CLOCK, SETTINGS, DEVICE_PUBLIC, PASSWORD]);
  });

  it('the flag and feature names are those of the target config', () => {
    expect(DEVICE_FLAG).toBe('device_authorization_grant');
    expect(PASSWORD_FEATURE).toBe('password_grant');
  });

  it('no control API: neither clock nor settings is asked, nothing is writable', async () => {
    const { caps, sent } = await detect({ control: false });
    expect(caps).toEqual({ ...ALL, control: false, clock: false, settings: false, writable: false });
    expect(sent).toEqual([DEVICE_PUBLIC, PASSWORD]);
  });

  describe('clock: any 2xx to a zero advance', () => {
    const clock = async (answer: Answer) => {
      const { caps, sent } = await detect({ answers: { '/-/simulator/clock': answer } });
      expect(sent).toEqual([CLOCK, SETTINGS, DEVICE_PUBLIC, PASSWORD]);
      expect(caps).toEqual({ ...ALL, clock: caps.clock });
      return caps.clock;
    };
    it('2xx is a clock', async () => {
      expect(await clock(status(200))).toBe(true);
      expect(await clock(() => new Response(null, { status: 204 }))).toBe(true);
      expect(await clock(status(299, 'not json'))).toBe(true);
    });
    it('3xx, 4xx, 5xx or no answer is none', async () => {
      expect(await clock(status(300))).toBe(false);
      expect(await clock(status(404))).toBe(false);
      expect(await clock(status(500))).toBe(false);
      expect(await clock(unreachable)).toBe(false);
    });
  });

  describe('settings: 200 with a JSON object', () => {
    const settings = async (answer: Answer) => {
      const { caps, sent } = await detect({ answers: { '/-/simulator/settings': answer } });
      expect(sent).toEqual([CLOCK, SETTINGS, DEVICE_PUBLIC, PASSWORD]);
      expect(caps).toEqual({ ...ALL, settings: caps.settings });
      return caps.settings;
    };
    it('a JSON object answered 200', async () => {
      expect(await settings(status(200, '{"passwordGrant":true}'))).toBe(true);
    });
    it('another status, JSON that is no object, no JSON, or no answer', async () => {
      expect(await settings(status(404))).toBe(false);
      expect(await settings(() => new Response(null, { status: 204 }))).toBe(false);
      expect(await settings(status(500))).toBe(false);
      expect(await settings(status(200, 'null'))).toBe(false);
      expect(await settings(status(200, 'true'))).toBe(false);
      expect(await settings(status(200, 'settings'))).toBe(false);
      expect(await settings(unreachable)).toBe(false);
    });
  });

  describe('device: the flag, an application to ask with, and the endpoint', () => {
    const device = async (c: Case) => {
      const { caps, sent } = await detect(c);
      const { device, deviceRefused } = caps;
      expect(caps).toEqual({ ...ALL, device, oidc: caps.oidc, ...(deviceRefused ? { deviceRefused } : {}) });
      return {
        device,
        ...(deviceRefused ? { deviceRefused } : {}),
        sent: sent.filter((s) => s.includes('authorize_device')),
      };
    };
    const answering = (answer: Answer, features?: Record<string, boolean>): Case => ({
      answers: { '/oauth/authorize_device': answer },
      ...(features ? { config: { ...CONFIG, features } } : {}),
    });

    it('asks as the public application, else the confidential one with its secret (RFC 8628 §3.1), with its first scope', async () => {
      expect(await device({})).toEqual({ device: true, sent: [DEVICE_PUBLIC] });
      expect(await device({ config: { ...CONFIG, applications: { confidential: CONFIDENTIAL } } })).toEqual({
        device: true,
        sent: ['POST /oauth/authorize_device client_id=conf-client&client_secret=conf-secret-value-1&scope=api'],
      });
    });

    it('no application: nothing asked, absent unless the config declares it', async () => {
      const none = { ...CONFIG, applications: {} };
      expect(await device({ config: none })).toEqual({ device: false, sent: [] });
      expect(await device({ config: { ...none, features: { device_authorization_grant: true } } })).toEqual({
        device: true,
        sent: [],
      });
    });

    it('the flag off: nothing asked and absent, whatever the config declares', async () => {
      expect(await device({ flags: { device_authorization_grant: false } })).toEqual({ device: false, sent: [] });
      expect(
        await device({
          flags: { device_authorization_grant: false },
          config: { ...CONFIG, features: { device_authorization_grant: true } },
        }),
      ).toEqual({ device: false, sent: [] });
      expect(await device({ flags: { device_authorization_grant: true } })).toEqual({
        device: true,
        sent: [DEVICE_PUBLIC],
      });
      // Another flag off changes nothing.
      expect(await device({ flags: { password_grant: false } })).toEqual({ device: true, sent: [DEVICE_PUBLIC] });
    });

    it('present: a 200 naming a device_code, or a server error (a broken feature is failed, not skipped)', async () => {
      expect((await device(answering(status(200, '{"device_code":"d"}')))).device).toBe(true);
      expect((await device(answering(status(500)))).device).toBe(true);
      expect((await device(answering(status(503, 'down')))).device).toBe(true);
    });

    it('absent: a 200 without a device_code, a refusal, a 404, no answer', async () => {
      expect((await device(answering(status(200, '{"user_code":"ABCD"}')))).device).toBe(false);
      expect((await device(answering(status(201, '{"device_code":"d"}')))).device).toBe(false);
      expect((await device(answering(status(400, '{"error":"unauthorized_client"}')))).device).toBe(false);
      expect((await device(answering(status(404)))).device).toBe(false);
      expect((await device(answering(status(499, '{"device_code":"d"}')))).device).toBe(false);
      expect((await device(answering(unreachable))).device).toBe(false);
    });

    it('a declaration counts when the endpoint refuses; declaring it off does not hide an answer', async () => {
      expect((await device(answering(status(404), { device_authorization_grant: true }))).device).toBe(true);
      expect((await device(answering(status(404), { device_authorization_grant: false }))).device).toBe(false);
      // Declared and refused (not absent): the refusal is kept, the device checks' one premise.
      expect(
        await device(answering(status(400, '{"error":"unauthorized_client"}'), { device_authorization_grant: true })),
      ).toEqual({
        device: true,
        deviceRefused: '400 unauthorized_client',
        sent: [DEVICE_PUBLIC, DEVICE_PUBLIC],
      });
      expect(
        (await device(answering(status(404), { device_authorization_grant: true }))).deviceRefused,
      ).toBeUndefined();
      expect(
        (await device(answering(status(200, '{"device_code":"d"}'), { device_authorization_grant: false }))).device,
      ).toBe(true);
    });
  });

  describe('password grant: in force, a user, not declared off, and the grant answers', () => {
    const password = async (c: Case) => {
      const { caps, sent } = await detect(c);
      const { passwordGrant, passwordRefused, clientBasicRefused } = caps;
      expect(caps).toEqual({
        ...ALL,
        passwordGrant,
        ...(passwordRefused ? { passwordRefused } : {}),
        ...(clientBasicRefused ? { clientBasicRefused } : {}),
      });
      return {
        passwordGrant,
        passwordRefused,
        ...(clientBasicRefused ? { clientBasicRefused } : {}),
        sent: sent.filter((s) => s.includes('/oauth/token')),
      };
    };
    const answering = (answer: Answer, features?: Record<string, boolean>): Case => ({
      answers: { '/oauth/token': answer },
      ...(features ? { config: { ...CONFIG, features } } : {}),
    });

    it('present: a 200 or a server error', async () => {
      expect(await password({})).toEqual({ passwordGrant: true, sent: [PASSWORD] });
      expect((await password(answering(status(500)))).passwordGrant).toBe(true);
      expect((await password(answering(status(502, 'bad gateway')))).passwordGrant).toBe(true);
    });

    it('absent: a refusal (400, 401, 499) or no answer', async () => {
      expect((await password(answering(status(400, '{"error":"unsupported_grant_type"}')))).passwordGrant).toBe(false);
      expect((await password(answering(status(401, '{"error":"invalid_client"}')))).passwordGrant).toBe(false);
      expect((await password(answering(status(499)))).passwordGrant).toBe(false);
      expect((await password(answering(unreachable))).passwordGrant).toBe(false);
    });

    it('declared on: present even when refused; declared off: not asked at all', async () => {
      expect((await password(answering(status(400), { password_grant: true }))).passwordGrant).toBe(true);
      expect(await password({ config: { ...CONFIG, features: { password_grant: false } } })).toEqual({
        passwordGrant: false,
        sent: [],
      });
    });

    it('declared on and refused with and without client authentication: the refusal is kept, its code only', async () => {
      const refused = await password(
        answering(status(400, '{"error":"unauthorized_client"}'), { password_grant: true }),
      );
      expect(refused).toEqual({
        passwordGrant: true,
        passwordRefused: '400 unauthorized_client',
        sent: [PASSWORD, PASSWORD_WITHOUT_CLIENT],
      });
      expect(
        (await password(answering(status(403, '<html>no</html>'), { password_grant: true }))).passwordRefused,
      ).toBe('403');
      // HTTP Basic alone refused: the grant is there, the refusal of Basic kept for
      // grants.password-response to judge (AUTH-CLIENT-BASIC), declared or not (review 28, defect 6).
      const basicOnly: Answer = (r) =>
        r.headers.get('authorization')
          ? status(401, '{"error":"invalid_client"}')(r)
          : status(200, '{"access_token":"t"}')(r);
      for (const features of [{ password_grant: true }, undefined])
        expect(await password(answering(basicOnly, features))).toEqual({
          passwordGrant: true,
          clientBasicRefused: '401 invalid_client',
          sent: [PASSWORD, PASSWORD_WITHOUT_CLIENT],
        });
      // Not declared: a refusal is no premise of anything, asked once.
      expect(await password(answering(status(400, '{"error":"unauthorized_client"}')))).toEqual({
        passwordGrant: false,
        sent: [PASSWORD],
      });
    });

    it('not in force at the release, or no user: not asked, absent whatever the config declares', async () => {
      const declared = { ...CONFIG, features: { password_grant: true } };
      expect(await password({ passwordInForce: false, config: declared })).toEqual({ passwordGrant: false, sent: [] });
      expect(await password({ config: { ...declared, user: undefined } })).toEqual({ passwordGrant: false, sent: [] });
    });

    it('the token the probe got is left to the flows to revoke', async () => {
      const { oauth, t } = await detect();
      t.sent.splice(0);
      await oauth.revokeAll();
      expect(t.sent).toEqual([
        'POST /oauth/revoke token=password-token-1&client_id=conf-client&client_secret=conf-secret-value-1',
      ]);
    });
  });

  it('pat: a personal access token in the config', async () => {
    expect((await detect({ config: { ...CONFIG, personalAccessToken: undefined } })).caps).toEqual({
      ...ALL,
      pat: false,
    });
  });

  describe('endpoint families: asked once per run, without credentials; only a 404 is absent', () => {
    const families = async (answers: Record<string, Answer>) => (await detect({ answers })).families;

    it('a 404 of /api/v4/user, /oauth/token/info or /oauth/userinfo: that family is absent, the others stay', async () => {
      const plain404: Answer = () =>
        new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } });
      const served: Answer = () => Response.json({ error: 'invalid_token' }, { status: 401 });
      expect(
        await families({ '/api/v4/user': plain404, '/oauth/token/info': served, '/oauth/userinfo': served }),
      ).toMatchObject({ restApi: false, tokenInfo: true, userinfo: true, introspection: false });
      expect(
        await families({ '/api/v4/user': served, '/oauth/token/info': plain404, '/oauth/userinfo': served }),
      ).toMatchObject({ restApi: true, tokenInfo: false, userinfo: true, introspection: false });
      expect(
        await families({ '/api/v4/user': served, '/oauth/token/info': served, '/oauth/userinfo': plain404 }),
      ).toMatchObject({ restApi: true, tokenInfo: true, userinfo: false, introspection: false });
      // The answer that said so is kept, for the reporter to judge (runner/session.ts startUpAbsences).
      const absent = await families({
        '/api/v4/user': plain404,
        '/oauth/token/info': plain404,
        '/oauth/userinfo': status(405),
      });
      expect(absent.absentAnswers).toMatchObject({ restApi: 404, tokenInfo: 404, userinfo: 405 });
      const there = await families({ '/api/v4/user': served, '/oauth/token/info': served, '/oauth/userinfo': served });
      for (const family of ['restApi', 'tokenInfo', 'userinfo']) expect(there.absentAnswers).not.toHaveProperty(family);
    });

    it('any other answer, a server error or none at all is there: a broken endpoint is failed, not skipped', async () => {
      for (const answer of [status(500), status(200), status(403), unreachable])
        expect(
          await families({ '/api/v4/user': answer, '/oauth/token/info': answer, '/oauth/userinfo': answer }),
        ).toMatchObject({ restApi: true, tokenInfo: true, userinfo: true, introspection: false });
    });

    it('a gateway error of /api/v4/user (the proxy in front reached no API): the REST API is unreachable, said with its status', async () => {
      for (const code of [502, 503, 504, 521, 522]) {
        const { caps, families } = await detect({ answers: { '/api/v4/user': status(code) } });
        expect(families.restApi, String(code)).toBe(false);
        expect(caps.restApiDown, String(code)).toBe(code);
        // Out of reach is not absent: versioning.api-prefix says it (errored), no rule judges it.
        expect(families.absentAnswers ?? {}, String(code)).not.toHaveProperty('restApi');
      }
      expect((await detect({ answers: { '/api/v4/user': status(500) } })).caps.restApiDown).toBeUndefined();
    });

    it('the configured personal access token refused by /api/v4/user (an account blocked, a token revoked): the REST API is out of the run, said with its status; read by it after a 404 without it: there', async () => {
      const served = status(401, '{"message":"401 Unauthorized"}');
      for (const code of [401, 403]) {
        const { caps, families } = await detect({ answers: { '/api/v4/user': served, pat: status(code) } });
        expect(families.restApi, String(code)).toBe(false);
        expect(caps.restPatRefused, String(code)).toBe(code);
      }
      // Accepted, answered otherwise, or no token configured: the REST API stays, nothing said.
      for (const pat of [status(200), status(500)]) {
        const { caps, families } = await detect({ answers: { '/api/v4/user': served, pat } });
        expect([families.restApi, caps.restPatRefused]).toEqual([true, undefined]);
      }
      const { caps, families } = await detect({
        answers: { '/api/v4/user': served, pat: status(403) },
        config: { ...CONFIG, personalAccessToken: undefined },
      });
      expect([families.restApi, caps.restPatRefused]).toEqual([true, undefined]);
      // An API that answers 404 to a caller without credentials is there when the token reads it.
      const hidden = await detect({ answers: { '/api/v4/user': status(404), pat: status(200) } });
      expect([hidden.families.restApi, hidden.caps.restPatRefused]).toEqual([true, undefined]);
      const absent = await detect({ answers: { '/api/v4/user': status(404), pat: status(401) } });
      expect([absent.families.restApi, absent.caps.restPatRefused]).toEqual([false, undefined]);
    });

    it('the token refused in PRIVATE-TOKEN and read as a Bearer token: the REST API stays, its checks send it as Bearer', async () => {
      const pat = CONFIG.personalAccessToken!;
      const bearerReads: Answer = (r) =>
        r.headers.get('authorization') === `Bearer ${pat}` ? status(200)(r) : status(401)(r);
      const { caps, families } = await detect({ answers: { '/api/v4/user': bearerReads, pat: status(401) } });
      expect([families.restApi, caps.restPatRefused, caps.patAsBearer]).toEqual([true, undefined, true]);
      // Read in PRIVATE-TOKEN: asked no other way.
      const plain = await detect({ answers: { '/api/v4/user': bearerReads, pat: status(200) } });
      expect([plain.families.restApi, plain.caps.patAsBearer]).toEqual([true, undefined]);
    });

    it('the token and revocation endpoints: absent on a 404 or 405 to an empty POST; any other answer, or none, is there', async () => {
      // The answer that said so is kept, for the reporter to judge (runner/session.ts startUpAbsences).
      for (const code of [404, 405]) {
        const token = await families({ '/oauth/token': status(code) });
        expect(token).toMatchObject({ tokenEndpoint: false, revocation: true });
        expect(token.absentAnswers).toMatchObject({ tokenEndpoint: code });
        expect(token.absentAnswers).not.toHaveProperty('revocation');
        const revoke = await families({ '/oauth/revoke': status(code) });
        expect(revoke).toMatchObject({ tokenEndpoint: true, revocation: false });
        expect(revoke.absentAnswers).toMatchObject({ revocation: code });
        expect(revoke.absentAnswers).not.toHaveProperty('tokenEndpoint');
      }
      for (const answer of [status(400), status(401), status(200), status(500), unreachable])
        expect(await families({ '/oauth/token': answer, '/oauth/revoke': answer })).toMatchObject({
          tokenEndpoint: true,
          revocation: true,
        });
    });

    it('introspection: the endpoint discovery advertises on the target origin, as a path; elsewhere or malformed, none', async () => {
      const discovery = (doc: unknown, code = 200): Record<string, Answer> => ({
        '/.well-known/openid-configuration': () => Response.json(doc, { status: code }),
      });
      expect(await families(discovery({ introspection_endpoint: `${FAKE_BASE}/oauth/introspect?v=1` }))).toMatchObject({
        introspection: true,
        introspectionPath: '/oauth/introspect?v=1',
      });
      expect(await families(discovery({ introspection_endpoint: '/oauth/introspect' }))).toMatchObject({
        introspection: true,
        introspectionPath: '/oauth/introspect',
      });
      for (const doc of [
        discovery({ introspection_endpoint: 'http://elsewhere.test/oauth/introspect' }),
        discovery({ introspection_endpoint: 42 }),
        discovery({ introspection_endpoint: `${FAKE_BASE}/oauth/introspect` }, 404),
        discovery(null),
        { '/.well-known/openid-configuration': () => new Response('not json') },
      ])
        expect(await families(doc)).toMatchObject({ introspection: false, introspectionPath: undefined });
    });
  });

  it('oidc: any configured application with the openid scope', async () => {
    const oidc = async (applications: TargetConfig['applications']) =>
      (await detect({ config: { ...CONFIG, applications }, flags: { device_authorization_grant: false } })).caps.oidc;
    expect(await oidc({ confidential: CONFIDENTIAL, public: PUBLIC })).toBe(true);
    expect(await oidc({ confidential: CONFIDENTIAL })).toBe(false);
    expect(await oidc({ confidential: { ...CONFIDENTIAL, scopes: ['openid'] } })).toBe(true);
    expect(await oidc({ limited: undefined, public: PUBLIC })).toBe(true);
    expect(await oidc(undefined)).toBe(false);
  });
});
