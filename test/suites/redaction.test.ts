import { describe, expect, it } from 'vitest';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { runConformance } from '../../suites/runner/run.js';
import { CheckFailure } from '../../suites/runner/errors.js';
import { describeFailure } from '../../suites/runner/session.js';
import type { CheckContext } from '../../suites/types.js';
import { check, fakeTarget, RULES } from './fakes.js';

// One distinct value per secret kind, long enough to keep a 4-character prefix.
const S = {
  bearer: 'bearer-AAAA-1111-secret-value',
  basicPassword: 'basic-BBBB-2222-secret-value',
  pat: 'glpat-CCCC-3333-secret-value',
  cookie: 'cookie-DDDD-4444-secret-value',
  setCookie: 'setcookie-EEEE-5555-secret',
  queryToken: 'query-FFFF-6666-access-token',
  refresh: 'refresh-GGGG-7777-secret-val',
  clientSecret: 'client-HHHH-8888-secret-val',
  password: 'password-IIII-9999-secret',
  code: 'code-JJJJ-0000-secret-value',
  verifier: 'verifier-KKKK-1212-secret-v',
  deviceCode: 'device-LLLL-1313-secret-val',
  token: 'token-MMMM-1414-secret-value',
  access: 'access-NNNN-1515-secret-valu',
  idToken: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA',
  locationCode: 'loc-OOOO-1616-secret-code-v',
  userPassword: 'userpass-PPPP-1717-secret',
};

function server() {
  return fakeTarget((r) => {
    const path = new URL(r.url).pathname;
    if (path === '/oauth/token') {
      return Response.json(
        { access_token: S.access, refresh_token: S.refresh, id_token: S.idToken, token_type: 'bearer' },
        { headers: { 'set-cookie': `_session=${S.setCookie}; Path=/; HttpOnly` } },
      );
    }
    if (path === '/oauth/authorize')
      return new Response(null, {
        status: 302,
        headers: { location: `http://app.test/cb?code=${S.locationCode}&state=xyz` },
      });
    // An error page that echoes what it was sent: the by-value net must catch it.
    return new Response(`<p>bad token ${S.access} and ${S.code}</p>`, {
      status: 400,
      headers: { 'content-type': 'text/html' },
    });
  });
}

describe('redaction of recorded exchanges', () => {
  it('masks every secret kind in headers, URLs, form and JSON bodies, and anywhere it is echoed later', async () => {
    const recorder = createRecorder(100);
    const redactor = createRedactor();
    const http = createHttp(server(), recorder, redactor);
    await http.get('/api/v4/user', {
      bearer: S.bearer,
      query: { access_token: S.queryToken },
      headers: { 'PRIVATE-TOKEN': S.pat, cookie: `_session=${S.cookie}` },
    });
    await http.post('/oauth/token', {
      basic: { user: 'client', password: S.basicPassword },
      form: {
        grant_type: 'refresh_token',
        refresh_token: S.refresh,
        client_secret: S.clientSecret,
        password: S.password,
        code: S.code,
        code_verifier: S.verifier,
        device_code: S.deviceCode,
        token: S.token,
        'user[password]': S.userPassword,
      },
    });
    await http.post('/oauth/token', { json: { client_secret: S.clientSecret, code: S.code } });
    await http.get('/oauth/authorize');
    await http.get('/echo');
    // As the runner attaches them to a failure: masked again with every secret learned since.
    const recorded = JSON.stringify(recorder.exchanges.map((e) => redactor.exchange(e)));
    for (const [kind, value] of Object.entries(S)) expect(recorded, kind).not.toContain(value);
    // Masked to a short fixed prefix, so a reader can still tell tokens apart.
    expect(recorded).toContain('acce…');
    expect(recorded).toContain('Bearer bear…');
    expect(recorder.exchanges[0].request.url).toContain('/api/v4/user?access_token=quer');
  });

  it('keeps secrets out of a failed check in the report: message, exchanges and details', async () => {
    const report = await runConformance({
      seed: 1,
      numRuns: 5,
      rules: RULES,
      target: server(),
      checks: [
        check('leaky', ['T-MUST'], async (t: CheckContext) => {
          const r = await t.http.post('/oauth/token', { form: { grant_type: 'password', password: S.password } });
          const body = r.json<{ access_token: string }>();
          await t.http.get('/echo');
          t.fail(`token ${body.access_token} was refused`, { token: body.access_token });
        }),
      ],
    });
    const text = JSON.stringify(report);
    expect(report.checks[0].status).toBe('failed');
    expect(text).not.toContain(S.access);
    expect(text).not.toContain(S.password);
    expect(report.checks[0].message).toContain('acce…');
  });

  it('masks a password or token in the reproduce command, word for word, and nothing else of it', async () => {
    const report = await runConformance({
      seed: 42,
      numRuns: 5,
      rules: RULES,
      target: server(),
      reproduceArgs: ['--target', `https://ci:${S.password}@idp.test/?private_token=${S.pat}`, '--runs', '5'],
      checks: [check('fails', ['T-MUST'], async (t: CheckContext) => t.fail('no'))],
    });
    expect(report.checks[0].reproduce).toBe(
      `npx idp-conformance run --check grants.fails --seed 42 --target 'https://ci:pass…@idp.test/?private_token=glpa…' --runs 5`,
    );
  });
});

describe("the run's own words against a target that issues them as tokens (review 13)", () => {
  it("the seed and the target's host stay in the message and the reproduce command", async () => {
    const base = 'http://login.qzvxwk.example:47200';
    const host = 'login.qzvxwk.example';
    const issued = fakeTarget(() => Response.json({ access_token: host, refresh_token: '20240517' }), {
      baseUrl: base,
    });
    const report = await runConformance({
      seed: 20240517,
      numRuns: 1,
      rules: RULES,
      target: { ...issued, baseUrl: base },
      reproduceArgs: ['--target', base],
      checks: [
        check('echoed', ['T-MUST'], async (t: CheckContext) => {
          await t.http.post('/oauth/token', { form: { grant_type: 'password' } });
          t.fail(`${host} refused run 20240517`);
        }),
      ],
    });
    expect(report.checks[0].message).toBe(`${host} refused run 20240517`);
    expect(report.checks[0].reproduce).toBe(
      `npx idp-conformance run --check grants.echoed --seed 20240517 --target ${base}`,
    );
  });
});

describe('a known secret in the forms an honest target writes it', () => {
  // An Azure AD client secret holds `~`, which URLSearchParams writes %7E and encodeURIComponent keeps.
  const secret = 'Az8Q~xY2.vK_r5Wq9-Lm3Np6';
  const bytes = [...Buffer.from(secret)];
  const forms: Record<string, string> = {
    uppercase: secret.toUpperCase(),
    lowercase: secret.toLowerCase(),
    hex: Buffer.from(secret).toString('hex'),
    HEX: Buffer.from(secret).toString('hex').toUpperCase(),
    'URI-encoded': encodeURIComponent(secret),
    'form-encoded': new URLSearchParams({ s: secret }).toString().slice(2),
    'every byte %xx': bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    'every byte %XX': bytes.map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
    'zero-width spaces between': [...secret].join('\u200b'),
    'soft hyphens between': [...secret].join('\u00ad'),
    'tag characters between': [...secret].join('\u{E0041}'),
  };

  it.each(Object.entries(forms))('%s: masked inside a sentence, the words around it kept', (_name, form) => {
    const redactor = createRedactor([secret]);
    const shown = redactor.text(`error_description: ECHO <${form}> seen`);
    expect(shown).not.toContain(form);
    expect(shown).toMatch(/^error_description: ECHO <.*> seen$/s);
    // Nothing of the secret past the kept prefix, in any case.
    expect(shown.toLowerCase()).not.toContain(secret.slice(6, 14).toLowerCase());
  });
});

describe('a known secret as the harness quotes it, JSON-escaped', () => {
  it.each(['Tr0ub4"dor&3x', 'C:\\pass\\W0rd99', 'pässwörd-Ü123\u0001'])(
    '%j is masked in a message and in details',
    (secret) => {
      const redactor = createRedactor([secret]);
      const failure = new CheckFailure(`the token endpoint said ${JSON.stringify(`bad password ${secret}`)}`, {
        error_description: { said: secret },
      });
      const shown = redactor.text(describeFailure(failure, (text) => redactor.text(text)));
      expect(shown).toContain('the token endpoint said');
      expect(shown).not.toContain(JSON.stringify(secret).slice(5, -1));
    },
  );
});

describe('what a target can teach the run as a secret', () => {
  /** A redactor that saw a token response with these secret-named members. */
  const taught = (members: Record<string, string>) => {
    const redactor = createRedactor([]);
    redactor.learn({
      request: { method: 'POST', url: 'http://127.0.0.1:1/oauth/token', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(members) },
    });
    return redactor;
  };

  /** Values a target named secrets, and a sentence of the harness's that holds them in any case. */
  const WORDS: Array<[string, Record<string, string>, string]> = [
    [
      'only credential-looking values: words, rule ids and paths of the harness stay readable',
      {
        client_secret: 'status',
        session_token: 'invalid_grant',
        device_secret: 'GRANT-CODE-SINGLE-USE',
        x_api_key: 'FAILED',
        id_token_hint: 'must',
        ticket: 'http',
        refresh_token: 'OIDC-DISCOVERY-RS256',
        access_token: '/api/v4/user',
        secret_key: 'expected',
      },
      '(status: 200; error: null; expectedError: ["invalid_grant"]) must be status invalid_grant ' +
        'GRANT-CODE-SINGLE-USE FAILED must http OIDC-DISCOVERY-RS256 /api/v4/user expected',
    ],
    [
      'no word of any case, check id or rule id: the harness says them whatever a target named a secret',
      {
        client_secret: 'Expected',
        session_token: 'Unauthorized',
        device_secret: 'Access_Denied',
        x_api_key: 'grants.state-unchanged',
        app_password: 'consent-denied',
        code_verifier: 'oidc.discovery-rs256',
        refresh_token: 'oidc-discovery-rs256',
        user_passwd: 'Unauthorized_Client',
      },
      'grants.consent-denied: the token endpoint answered 401, expected unauthorized_client; the redirect ' +
        'carried error=access_denied (see grants.state-unchanged, oidc.discovery-rs256, OIDC-DISCOVERY-RS256); Expected a 4xx',
    ],
  ];

  it.each(WORDS)('%s', (_name, words, sentence) => {
    expect(taught(words).text(sentence)).toBe(sentence);
  });

  it('a token, a random secret and a device user code are still learned and masked', () => {
    const secrets = {
      access_token: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      client_secret: 'kQpXvLmNoRsTuWyZaBcDeFgH',
      user_code: 'WDJB-MJHT',
    };
    const redactor = taught(secrets);
    for (const secret of Object.values(secrets)) expect(redactor.text(`saw ${secret} here`)).not.toContain(secret);
  });
});

describe("the config's values against a target that issues them as tokens (review 14)", () => {
  it('every non-secret value of the config stays in the message; its secrets are masked still', async () => {
    const config = {
      issuer: 'https://sso.qzvxwk.example',
      trustedOrigins: ['https://login.qzvxwk.example'],
      user: { username: 'alice-smith', password: 'hunter2-secret-pw' },
      fixtures: {
        project: 'alice-smith/website-prod',
        movedProject: { oldPath: 'qzvx/old-wkpz', newPath: 'qzvx/new-wkpz' },
        largeProject: 'qzvx/bulk-xkcdq',
        group: 'zqxj-team',
        slashedBranch: 'feature/xkcd-4711',
        slashedTag: 'rel/zqxw-7',
      },
    };
    const values = [
      config.issuer,
      'login.qzvxwk.example',
      'website-prod',
      'alice-smith/website-prod',
      'qzvx/old-wkpz',
      'qzvx/bulk-xkcdq',
      'zqxj-team',
      'feature/xkcd-4711',
    ];
    // Each issued under a secret name (an array's members take its name).
    const issued = fakeTarget(() => Response.json({ access_token: [...values, config.user.password] }), config);
    const message = `${values.join(' ')} refused; password ${config.user.password}`;
    const report = await runConformance({
      seed: 7,
      numRuns: 1,
      rules: RULES,
      target: issued,
      checks: [
        check('echoed', ['T-MUST'], async (t: CheckContext) => {
          await t.http.post('/oauth/token', { form: { grant_type: 'password' } });
          t.fail(message);
        }),
      ],
    });
    expect(report.checks[0].message).toBe(message.replace(config.user.password, 'hunt…'));
  });
});

describe('names the target chose (Redactor.name, which diff keeps)', () => {
  it('masks a name as a text, and again once the run learns the secret it holds', () => {
    const redactor = createRedactor([S.pat]);
    expect(redactor.name(`x-${S.pat}`)).toBe(redactor.text(`x-${S.pat}`));
    expect(redactor.name(`x-${S.pat}`)).not.toContain(S.pat);
    // Seen before the token it echoes was issued, then after: remembered only until then.
    expect(redactor.name(S.access)).toBe(S.access);
    redactor.learn({
      request: { method: 'POST', url: 'http://127.0.0.1:1/oauth/token', headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: S.access }),
      },
    });
    expect(redactor.name(S.access)).toBe('acce…');
  });
});
