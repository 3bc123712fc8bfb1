/**
 * A report with a distinct value in every free-text field the report schema has (`reproduce`,
 * `failures`, `expectedReason`, the diff and client sections included), each in its own disguise
 * with the harness's prose around it: redact-every-field.test.ts puts a secret in each,
 * hand-made-report.test.ts a megabyte.
 */
import type { Report } from '../../suites/report/model.js';

export const FIELDS = [
  'version',
  'target',
  'release',
  'offering',
  'invocation',
  'stopped',
  'ruleId',
  'ruleTitle',
  'ruleSource',
  'ruleOrigin',
  'ruleReason',
  'staleReason',
  'checkId',
  'suite',
  'message',
  'failure1',
  'failure2',
  'failureRule',
  'counterexample',
  'reproduce',
  'expectedReason',
  'expectedMessage',
  'provedRule',
  'method',
  'url',
  'authorization',
  'cookie',
  'requestNote',
  'requestBody',
  'setCookie',
  'responseNote',
  'responseBody',
  'diffReference',
  'diffOperation',
  'diffSubject',
  'diffTarget',
  'diffSide',
  'diffRule',
  'diffCheck',
  'diffAllowed',
  'diffUnjudged',
  'diffStatus',
  'diffRead',
  'diffNotCompared',
  'diffNotComparedCheck',
  'diffNotComparedOperation',
  'clientHabit',
  'clientTitle',
  'clientWhere',
  'clientFirst',
  'clientTraffic',
] as const;
export type Field = (typeof FIELDS)[number];

/** One raw secret per field, each with its own four-character prefix (kept by the mask). */
export const RAW = Object.fromEntries(
  FIELDS.map((field, i) => [field, `${String.fromCharCode(65 + (i % 26))}${i}q${i % 10}-secret-value-70${i}42`]),
) as Record<Field, string>;
export const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjb2RlIn0.c2lnbmF0dXJlLWJ5dGVz';

/**
 * The report, with `v` applied to every secret: the identity gives what a run could produce, the
 * mask gives what every format must show instead. Everything else is prose that must stay.
 */
export function fixture(v: (raw: string) => string): Report {
  const s = (field: Field) => v(RAW[field]);
  const checkId = `grants.code-once access_token=${s('checkId')}`;
  const ruleId = `GRANT-CODE-SINGLE-USE Bearer ${s('ruleId')}`;
  return {
    tool: 'idp-conformance',
    version: `0.1.0 (PRIVATE-TOKEN: ${s('version')})`,
    target: `https://ci:${s('target')}@idp.test/`,
    release: `18.0 client_secret=${s('release')}`,
    offering: `self-managed; Cookie: _s=${s('offering')}`,
    seed: 7,
    startedAt: '2026-11-23T00:00:00.000Z',
    durationMs: 1500,
    summary: { passed: 1, failed: 1, warned: 0, skipped: 0, errored: 0, expected: 1 },
    coverage: { must: 3, mustTested: 3, required: 50 },
    invocation: { args: ['--target', `https://idp.test/?private_token=${s('invocation')}`, '--runs', '5'] },
    stopped: { reason: 'silent', message: `the target stopped answering; PRIVATE-TOKEN: ${s('stopped')}` },
    diff: {
      reference: `embedded simulator 18.0 client_secret=${s('diffReference')}`,
      read: [`release 17.5 (GET /api/v4/version) PRIVATE-TOKEN: ${s('diffRead')}`],
      exchanges: { target: 3, reference: 3, paired: 3 },
      differences: [
        {
          operation: `GET /api/v4/projects?private_token=${s('diffOperation')}`,
          kind: 'header',
          subject: `x-echo: Bearer ${s('diffSubject')}`,
          target: `access_token=${s('diffTarget')}`,
          reference: `password=${s('diffSide')}`,
          rules: [`PAG-LINK-HEADER Bearer ${s('diffRule')}`],
          checks: [`pagination.offset-headers code=${s('diffCheck')}`],
          allowed: `spec/openapi.yaml code=${s('diffAllowed')}`,
          unjudged: [`PAG-LINK-HEADER code=${s('diffUnjudged')}`],
          status: `200 code=${s('diffStatus')}`,
          count: 1,
        },
      ],
      notCompared: [
        {
          reason: `needs restApi: GET /api/v4/user answered 502 PRIVATE-TOKEN: ${s('diffNotCompared')}`,
          checks: [`pagination.offset-headers code=${s('diffNotComparedCheck')}`],
          operations: [`GET /api/v4/users?private_token=${s('diffNotComparedOperation')}`],
        },
      ],
    },
    client: {
      exchanges: 4,
      traffic: `3 exchanges judged; 1 request its client left, access_token=${s('clientTraffic')}`,
      habits: [
        {
          habit: `polls-too-fast code=${s('clientHabit')}`,
          title: `polled the device grant too soon, device_code=${s('clientTitle')}`,
          count: 2,
          where: [`POST /oauth/token?access_token=${s('clientWhere')}`],
          first: { exchange: 3, where: `POST /oauth/token?code=${s('clientFirst')}` },
        },
      ],
    },
    rules: [
      {
        id: ruleId,
        title: `An authorization code works once, token: expired, Bearer ${s('ruleTitle')}`,
        level: 'must',
        source: `States and transitions: password=${s('ruleSource')}`,
        origin: `RFC 6749 §4.1.2 "code": "${s('ruleOrigin')}"`,
        status: 'failed',
        checks: [checkId],
      },
      {
        id: 'TOK-NO-STORE',
        title: 'Token answers say no-store',
        level: 'must',
        source: 'Tokens',
        origin: 'source',
        status: 'expected',
        checks: ['grants.no-store'],
        expectedReason: `VENDOR-1234: the CDN strips it, see Authorization: Basic ${s('ruleReason')}`,
      },
      {
        id: 'TOK-REVOKE',
        title: 'Revoked tokens die',
        level: 'should',
        source: 'Revocation',
        origin: 'documented',
        status: 'stale',
        checks: ['grants.revoke'],
        expectedReason: `fixed in 3.2; refresh_token=${s('staleReason')}`,
      },
    ],
    checks: [
      {
        id: checkId,
        suite: `grants deploy-token: ${s('suite')}`,
        title: `A code is accepted once; code: expected a refusal ${v(JWT)}`,
        rules: [ruleId],
        broken: [ruleId, `DEV-SINGLE-USE code_verifier=${s('failureRule')}`],
        status: 'failed',
        durationMs: 812,
        message: `the code was accepted twice: error code: invalid_grant expected, got Bearer ${s('message')}`,
        failures: [
          {
            message: `first: Cookie: _s=${s('failure1')}`,
            broken: [ruleId],
          },
          {
            message: `second: status code: 200, token: revoked, Set-Cookie: _t=${s('failure2')}; Path=/`,
            broken: [`DEV-SINGLE-USE code_verifier=${s('failureRule')}`],
          },
        ],
        counterexample: `[{"password":"${s('counterexample')}","grant_type":"authorization_code"}]`,
        exchange: [
          {
            request: {
              method: `POST device_code=${s('method')}`,
              url: `http://idp.test/oauth/token?page=2&client_secret=${s('url')}`,
              headers: {
                Authorization: `Basic ${s('authorization')}`,
                Cookie: `theme=${v('dark-blue-theme')}; _s=${s('cookie')}`,
                'x-note': `sent Bearer ${s('requestNote')} as told`,
                'content-type': 'application/x-www-form-urlencoded',
              },
              body: `grant_type=authorization_code&code=${s('requestBody')}&redirect_uri=http%3A%2F%2Fapp.test%2Fcb`,
            },
            response: {
              status: 200,
              headers: {
                'Set-Cookie': `_s=${s('setCookie')}; Path=/; HttpOnly`,
                'x-request-id': `req-1 refresh_token=${s('responseNote')}`,
                'content-type': 'application/json',
              },
              body: `{"access_token":"${s('responseBody')}","token_type":"bearer","expires_in":7200,"id_token":"${v(JWT)}"}`,
            },
          },
        ],
        reproduce: `npx idp-conformance run --check grants.code-once --seed 7 --target 'https://ci:${s('reproduce')}@idp.test/'`,
      },
      {
        id: 'grants.no-store',
        suite: 'grants',
        title: 'Token answers say no-store',
        rules: ['TOK-NO-STORE'],
        broken: ['TOK-NO-STORE'],
        status: 'expected',
        durationMs: 20,
        message: `Cache-Control was absent; the token: missing, id_token=${s('expectedMessage')}`,
        expectedReason: `VENDOR-1234: the CDN strips it, see Authorization: Basic ${s('expectedReason')}`,
      },
      {
        id: 'grants.revoke',
        suite: 'grants',
        title: 'Revoked tokens die',
        rules: ['TOK-REVOKE'],
        proved: [`TOK-REVOKE "secret": "${s('provedRule')}"`],
        status: 'passed',
        durationMs: 30,
      },
    ],
  };
}
