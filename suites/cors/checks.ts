/** CORS on the /oauth endpoints: simple cross-origin requests, preflight from 15.1, the headers preflight grants. */
import fc from 'fast-check';
import { corsPreflights, operations, type RuleId } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { word } from '../grants/variants.js';
import {
  exchangeFresh,
  jsonObject,
  KEYS_PATH,
  REVOKE_PATH,
  TOKEN_INFO_PATH,
  TOKEN_PATH,
  USERINFO_PATH,
} from '../shared/oauth.js';
import { broke } from '../shared/rules.js';

/** Endpoints with preflight and the methods a browser would ask for, from the spec (x-cors-preflight, operations). */
function preflightTargets(): Array<[string, string]> {
  return corsPreflights().flatMap((p) =>
    operations()
      .filter((o) => o.path === p.path && o.method !== 'options' && o.method !== 'head')
      .map((o): [string, string] => [p.path, o.method.toUpperCase()]),
  );
}
const PREFLIGHT = preflightTargets();
/** The preflight targets the target serves: an absent userinfo says nothing of CORS (oidc.userinfo fails it). */
const preflights = (t: CheckContext) => PREFLIGHT.filter(([path]) => path !== USERINFO_PATH || t.caps.userinfo);
/** Headers the spec lets a preflight grant, and those it must never grant. */
const STANDARD_HEADERS = [...new Set(corsPreflights().flatMap((p) => p.allowedHeaders))];
const REFUSED_HEADERS = [...new Set(corsPreflights().flatMap((p) => p.refusedHeaders))];
/** The refused header rule CORS-X-REQUESTED-WITH-REFUSED names. */
const X_REQUESTED_WITH = 'x-requested-with';
/** Header names are case-insensitive: `x-requested-with` and `X-Requested-With` are one header. */
const capitalized = (h: string) => h.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
const origin = word.map((w) => `https://${w}.example`);

function preflight(
  t: CheckContext,
  path: string,
  method: string,
  from: string,
  headers: string[],
): Promise<HttpResponse> {
  return t.http.send({
    method: 'OPTIONS',
    path,
    headers: {
      origin: from,
      'access-control-request-method': method,
      ...(headers.length ? { 'access-control-request-headers': headers.join(', ') } : {}),
    },
  });
}

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
const succeeded = (res: HttpResponse) => res.status >= 200 && res.status < 300;
const allowsOrigin = (res: HttpResponse, from: string) =>
  [from, '*'].includes(res.headers.get('access-control-allow-origin') ?? '');
/**
 * Does the preflight allow the method, as a browser reads it (Fetch, CORS-preflight fetch): a
 * CORS-safelisted method (GET, HEAD, POST) whether listed or not; another listed, or `*` where the
 * answer does not allow credentials (for a request with credentials `*` is a method's name).
 */
const SAFELISTED_METHODS = ['GET', 'HEAD', 'POST'];
/** Is `*` in `values` the wildcard (Fetch): only where the answer does not allow credentials, else a name. */
const wildcard = (res: HttpResponse, values: string[]) =>
  values.includes('*') && res.headers.get('access-control-allow-credentials') !== 'true';
const allowsMethod = (res: HttpResponse, method: string) => {
  const methods = list(res.headers.get('access-control-allow-methods'));
  return (
    SAFELISTED_METHODS.includes(method.toUpperCase()) ||
    methods.includes(method.toLowerCase()) ||
    wildcard(res, methods)
  );
};
/** The preflight succeeded and allowed the origin: only then does a header it did not grant mean anything. */
export const preflightServed = (res: HttpResponse, from: string) => succeeded(res) && allowsOrigin(res, from);
/**
 * Does the preflight grant the header, as a browser reads it (Fetch, CORS-preflight fetch): listed
 * by name, or by the wildcard `*` (above), which never covers Authorization.
 */
const grants = (res: HttpResponse, header: string) => {
  const headers = list(res.headers.get('access-control-allow-headers'));
  const name = header.toLowerCase();
  return (
    succeeded(res) &&
    res.headers.has('access-control-allow-origin') &&
    (headers.includes(name) || (name !== 'authorization' && wildcard(res, headers)))
  );
};

function needPreflight(t: CheckContext): void {
  if (!t.inForce('CORS-PREFLIGHT')) t.skip(`preflight is supported from 15.1 (this run: ${t.release})`);
}

/**
 * A header not granted proves the limit only where preflight is served: each endpoint must first
 * answer a plain preflight with success and the origin allowed. A 404 or a 500 grants nothing, and
 * that is CORS-PREFLIGHT broken, not the limit kept. Which headers it grants is not the premise: a
 * server may grant only those asked for, from a list the source does not show (L173).
 */
async function expectPreflightServed(t: CheckContext): Promise<void> {
  for (const [path, method] of preflights(t)) {
    const res = await preflight(t, path, method, 'https://client.example', []);
    t.expect(
      preflightServed(res, 'https://client.example'),
      `preflight on ${path} must succeed and allow the origin before refusing headers means anything`,
      {
        path,
        status: res.status,
        allowOrigin: res.headers.get('access-control-allow-origin'),
        rules: ['CORS-PREFLIGHT'],
      },
    );
  }
}

export interface Preflight {
  path: string;
  /** Access-Control-Request-Method, upper case. */
  method: string;
  /** The Origin the preflight came from. */
  from: string;
  /** Access-Control-Request-Headers, as asked. */
  asked: string[];
}

/**
 * One preflight answer on an endpoint with preflight: success with the origin and the method
 * allowed (CORS-PREFLIGHT), each standard header asked granted (CORS-ALLOWED-HEADERS-LIST, a
 * should: the list is not shown, L173). Shared by cors.preflight and the proxy's passive judge.
 */
export function expectPreflightAnswer(t: CheckContext, res: HttpResponse, p: Preflight): void {
  const details = {
    path: p.path,
    status: res.status,
    allowOrigin: res.headers.get('access-control-allow-origin'),
    allowMethods: res.headers.get('access-control-allow-methods'),
    rules: ['CORS-PREFLIGHT'] as RuleId[],
  };
  t.expect(succeeded(res), `preflight on ${p.path} must succeed (2xx)`, details);
  t.expect(allowsOrigin(res, p.from), `preflight on ${p.path} must allow the origin`, details);
  t.expect(allowsMethod(res, p.method), `preflight on ${p.path} must allow ${p.method}`, details);
  for (const h of p.asked.filter((a) => STANDARD_HEADERS.includes(a.toLowerCase())))
    t.soft(grants(res, h), `preflight on ${p.path} should allow the ${h} header`, {
      ...details,
      allowHeaders: res.headers.get('access-control-allow-headers'),
      rules: ['CORS-ALLOWED-HEADERS-LIST'],
    });
}

/** A header the spec refuses (or one outside the allowed set) that the preflight granted all the same. */
export function expectNotGranted(t: CheckContext, res: HttpResponse, path: string, header: string): void {
  // A refused header granted breaks the limit on preflight headers as well; X-Requested-With has its own rule.
  const broken: RuleId[] =
    header.toLowerCase() === X_REQUESTED_WITH
      ? ['CORS-X-REQUESTED-WITH-REFUSED', 'CORS-ALLOWED-HEADERS-LIMITED']
      : ['CORS-ALLOWED-HEADERS-LIMITED'];
  t.expect(!grants(res, header), `preflight on ${path} granted ${header}`, {
    path,
    status: res.status,
    allowHeaders: res.headers.get('access-control-allow-headers'),
    rules: broken,
  });
}

/** Is this path and method one the spec serves preflight for (x-cors-preflight)? */
export const hasPreflight = (path: string, method: string): boolean =>
  PREFLIGHT.some(([p, m]) => p === path && m === method.toUpperCase());

/** Headers a preflight may grant (the standard list): any other asked one must not be granted. */
export const isStandardHeader = (header: string): boolean => STANDARD_HEADERS.includes(header.toLowerCase());

/** `METHOD /path` of an endpoint with preflight (L171): a browser client's, its answers must carry CORS. */
const hasPreflightRoute = (what: string) => PREFLIGHT.some(([path]) => what.endsWith(` ${path}`));

/** Requests each /oauth endpoint refuses (no code, no token, no client), sent from `from`. */
function invalidRequests(t: CheckContext, from: string): Array<[string, () => Promise<HttpResponse>]> {
  const headers = { origin: from };
  return [
    [
      'POST /oauth/token',
      () => t.http.post(TOKEN_PATH, { headers, form: { grant_type: 'authorization_code', code: 'not-a-code' } }),
    ],
    ['POST /oauth/revoke', () => t.http.post(REVOKE_PATH, { headers, form: { token: 'not-a-token' } })],
    ['GET /oauth/token/info', () => t.http.get(TOKEN_INFO_PATH, { headers })],
    ['GET /oauth/userinfo', () => t.http.get(USERINFO_PATH, { headers })],
  ];
}

/**
 * What a browser client at `from` gets when all goes well, each answer of the target's own: a code
 * exchanged, its token's info and userinfo, the token revoked, the key set. Only the 2xx answers:
 * a refusal here is another check's (the code flow's, token info's...), not a CORS answer.
 */
async function successfulAnswers(t: CheckContext, from: string): Promise<Array<[string, HttpResponse]>> {
  const headers = { origin: from };
  const answers: Array<[string, HttpResponse]> = [];
  const role = t.config.applications?.confidential
    ? 'confidential'
    : t.config.applications?.public
      ? 'public'
      : undefined;
  if (role) {
    const { res } = await exchangeFresh(t, role, {}, [], headers);
    answers.push(['POST /oauth/token', res]);
    const token = res.status === 200 ? jsonObject(res)?.access_token : undefined;
    if (typeof token === 'string') {
      if (t.caps.tokenInfo)
        answers.push(['GET /oauth/token/info', await t.http.get(TOKEN_INFO_PATH, { bearer: token, headers })]);
      if (t.caps.userinfo)
        answers.push(['GET /oauth/userinfo', await t.http.get(USERINFO_PATH, { bearer: token, headers })]);
      if (t.caps.revocation)
        answers.push([
          'POST /oauth/revoke',
          await t.oauth.clientRequest(REVOKE_PATH, { token }, { app: role, headers }),
        ]);
    } else
      t.note(
        `the code exchange from another origin answered ${res.status} without a token: judged on the other answers`,
      );
  }
  if (t.caps.keys) answers.push(['GET /oauth/discovery/keys', await t.http.get(KEYS_PATH, { headers })]);
  return answers.filter(([, res]) => succeeded(res));
}

export const corsChecks: Check[] = [
  {
    id: 'cors.preflight',
    suite: 'cors',
    title:
      'Preflight on /oauth/token, /oauth/revoke and /oauth/userinfo succeeds with Allow-Origin, Allow-Methods and Allow-Headers',
    rules: ['CORS-PREFLIGHT'],
    async run(t: CheckContext) {
      needPreflight(t);
      await t.property(origin, async (from) => {
        for (const [path, method] of preflights(t)) {
          // Content-Type with a JSON or form body is the one header every browser client of these endpoints sends.
          const res = await preflight(t, path, method, from, ['Content-Type']);
          expectPreflightAnswer(t, res, { path, method, from, asked: ['Content-Type'] });
        }
      });
    },
  },
  {
    id: 'cors.preflight-standard-headers',
    suite: 'cors',
    title: 'Preflight allows Authorization, Content-Type and Accept',
    rules: ['CORS-ALLOWED-HEADERS-LIST'],
    async run(t: CheckContext) {
      needPreflight(t);
      await t.property(
        fc.shuffledSubarray(STANDARD_HEADERS, { minLength: 1 }),
        fc.boolean(),
        async (headers, lower) => {
          const asked = lower ? headers : headers.map(capitalized);
          for (const [path, method] of preflights(t)) {
            const res = await preflight(t, path, method, 'https://client.example', asked);
            for (const h of asked) {
              t.expect(grants(res, h), `preflight on ${path} must allow the ${h} header`, {
                path,
                status: res.status,
                allowHeaders: res.headers.get('access-control-allow-headers'),
              });
            }
          }
        },
      );
    },
  },
  {
    id: 'cors.x-requested-with-refused',
    suite: 'cors',
    title: 'Preflight never grants X-Requested-With',
    rules: ['CORS-X-REQUESTED-WITH-REFUSED', 'CORS-ALLOWED-HEADERS-LIMITED'],
    async run(t: CheckContext) {
      needPreflight(t);
      await expectPreflightServed(t);
      const refused = fc
        .constantFrom(...REFUSED_HEADERS)
        .chain((h) => fc.constantFrom(h, h.toUpperCase(), capitalized(h)));
      await t.property(fc.subarray(STANDARD_HEADERS), refused, async (others, header) => {
        for (const [path, method] of preflights(t)) {
          const res = await preflight(t, path, method, 'https://client.example', [...others, header]);
          expectNotGranted(t, res, path, header);
        }
      });
    },
  },
  {
    id: 'cors.unlisted-headers-refused',
    suite: 'cors',
    title: 'Preflight does not grant a header outside the allowed set',
    rules: ['CORS-ALLOWED-HEADERS-LIMITED'],
    async run(t: CheckContext) {
      needPreflight(t);
      await expectPreflightServed(t);
      await t.property(word, fc.constantFrom(...preflights(t)), async (w, [path, method]) => {
        const header = `X-Custom-${w}`;
        if (STANDARD_HEADERS.includes(header.toLowerCase())) return;
        const res = await preflight(t, path, method, 'https://client.example', [header]);
        t.expect(!grants(res, header), `preflight on ${path} granted an arbitrary header`, {
          path,
          header,
          allowHeaders: res.headers.get('access-control-allow-headers'),
        });
      });
    },
  },
  {
    id: 'cors.simple-requests',
    suite: 'cors',
    title:
      'Cross-origin requests get Access-Control-Allow-Origin on /oauth/token, /oauth/revoke, /oauth/userinfo and most other /oauth endpoints, refusals too',
    rules: ['CORS-OAUTH-ENDPOINTS', 'CORS-ERROR-ANSWERS'],
    async run(t: CheckContext) {
      // "Support CORS" (L170) is a browser client served: judged on what succeeds, once.
      const served = await successfulAnswers(t, 'https://client.example');
      const without: string[] = [];
      for (const [what, res] of served) {
        if (allowsOrigin(res, 'https://client.example')) continue;
        without.push(what);
        t.soft(
          !hasPreflightRoute(what),
          `${what} from another origin must carry Access-Control-Allow-Origin (it has preflight)`,
          broke(['CORS-OAUTH-ENDPOINTS'], {
            status: res.status,
            allowOrigin: res.headers.get('access-control-allow-origin'),
          }),
        );
      }
      // "Many /oauth endpoints" (L170): most, not necessarily all.
      if (served.length)
        t.soft(
          without.length * 2 < served.length,
          `most /oauth endpoints must answer another origin with Access-Control-Allow-Origin; these did not: ${without.join(', ')}`,
          broke(['CORS-OAUTH-ENDPOINTS'], { without, judged: served.length }),
        );
      // Refusals (invalid requests, from any origin): a browser client reads the OAuth error only
      // where the refusal carries the header too (nginx's add_header without `always` leaves it out).
      let refused = 0;
      await t.property(origin, async (from) => {
        for (const [what, send] of invalidRequests(t, from)) {
          const res = await send();
          // An endpoint that is missing says nothing of CORS: its own checks fail it.
          if (res.status === 404 || res.status < 400 || !hasPreflightRoute(what)) continue;
          refused += 1;
          t.soft(
            allowsOrigin(res, from),
            `${what} refused from another origin should carry Access-Control-Allow-Origin, for the client to read the error`,
            broke(['CORS-ERROR-ANSWERS'], {
              status: res.status,
              allowOrigin: res.headers.get('access-control-allow-origin'),
            }),
          );
        }
      });
      if (served.length + refused === 0) t.skip('every OAuth endpoint answered 404: no CORS headers to judge');
    },
  },
];
