/**
 * A report with one check of every status, a failure carrying a counterexample, exchanges full of
 * secrets in every place they can hide, a reproduce line, and a message with HTML in it.
 */
import type { Report } from '../../suites/report/model.js';

/** Every secret the fixture hides; none may appear in any rendered output. */
export const SECRETS = {
  accessToken: 'AcCeSs7TokEnValuE0123456789abcdefXYZ',
  refreshToken: 'ReFrEsH5TokEnValuE9876543210fedcbaQRS',
  clientSecret: 'gloas-ClientSecret4f3e2d1c0b9a8877',
  password: 'Hunter2-Correct-Horse-Battery',
  code: 'AuThCoDe0001122334455667788',
  codeVerifier: 'VeRiFiEr-abcdefghijklmnopqrstuvwxyz0123456789.~_',
  deviceCode: 'DeViCeCoDe99887766554433221100',
  idToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiIxIiwiYXVkIjoiYXBwIn0.U2lnbmF0dXJlQnl0ZXNIZXJlMTIzNDU2',
  pat: 'glpat-PersonalAccess0Token1234',
  session: 'SeSsIoN0cookie1value2abcdef345',
  csrf: 'CsRf0TokenFromTheSignInPage9876',
} as const;

/** The HTML a hostile target could get into a message. */
export const HOSTILE = '<script>alert("pwned")</script><img src=x onerror="alert(1)">';

const s = SECRETS;

export function fixtureReport(): Report {
  return {
    tool: 'idp-conformance',
    version: '0.1.0',
    target: 'http://127.0.0.1:3000',
    release: '18.0',
    offering: 'self-managed',
    seed: 1234567,
    startedAt: '2026-11-21T05:00:00.000Z',
    durationMs: 4321,
    summary: { passed: 3, failed: 2, warned: 1, skipped: 1, errored: 0 },
    rules: [
      {
        id: 'PKCE-VERIFIER-LENGTH',
        title: 'A code verifier has 43 to 128 characters',
        level: 'must',
        source: 'GET /oauth/authorize',
        origin: 'source',
        status: 'failed',
        checks: ['grants.pkce-verifier'],
      },
      {
        id: 'GRANT-CODE-SINGLE-USE',
        title: 'An authorization code works once',
        level: 'must',
        source: 'RFC 6749 §4.1.2',
        origin: 'RFC 6749 §4.1.2',
        status: 'passed',
        checks: ['grants.code-single-use'],
      },
      {
        id: 'TOK-REFRESH-ROTATION',
        title: 'Refresh invalidates the old pair',
        level: 'must',
        source: 'States and transitions: Token refresh',
        origin: 'source',
        status: 'failed',
        checks: ['tokens.refresh-rotation'],
      },
      {
        id: 'CORS-PREFLIGHT-TOKEN',
        title: 'Preflight on /oauth/token',
        level: 'should',
        source: 'CORS',
        origin: 'source',
        status: 'warned',
        checks: ['cors.preflight-token'],
      },
      {
        id: 'DEV-SLOW-DOWN',
        title: 'Polling too fast gives slow_down',
        level: 'must',
        source: 'Device authorization',
        origin: 'source',
        status: 'skipped',
        checks: ['device.slow-down'],
      },
      {
        id: 'PAG-LINK-NEXT',
        title: 'Link rel=next visits every item once',
        level: 'must',
        source: 'Pagination',
        origin: 'source',
        status: 'passed',
        checks: ['pagination.offset-walk', 'pagination.keyset-walk'],
      },
      {
        id: 'ERR-OAUTH-BODY',
        title: 'Token endpoint failures carry the OAuth error body',
        level: 'must',
        source: 'Errors',
        origin: 'source',
        status: 'untested',
        checks: [],
      },
    ],
    checks: [
      {
        id: 'grants.code-single-use',
        suite: 'grants',
        title: 'A code is accepted once',
        rules: ['GRANT-CODE-SINGLE-USE'],
        status: 'passed',
        durationMs: 120,
      },
      {
        id: 'grants.pkce-verifier',
        suite: 'grants',
        title: 'Verifiers outside 43..128 are refused',
        rules: ['PKCE-VERIFIER-LENGTH', 'PKCE-VERIFIER-CHARSET'],
        broken: ['PKCE-VERIFIER-LENGTH'],
        status: 'failed',
        durationMs: 812,
        message: `A 42-character verifier was accepted: ${HOSTILE}\nsecond line with access_token=${s.accessToken}`,
        counterexample: `["${'a'.repeat(42)}"]`,
        exchange: [
          {
            request: {
              method: 'POST',
              url: `http://127.0.0.1:3000/oauth/token?client_secret=${s.clientSecret}`,
              headers: {
                'content-type': 'application/x-www-form-urlencoded',
                authorization: `Basic ${Buffer.from(`app:${s.clientSecret}`).toString('base64')}`,
                cookie: `_session=${s.session}; theme=dark`,
              },
              body: `grant_type=authorization_code&code=${s.code}&code_verifier=${s.codeVerifier}&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&client_id=app`,
            },
            response: {
              status: 200,
              headers: { 'content-type': 'application/json', 'set-cookie': `_session=${s.session}; path=/; HttpOnly` },
              body: JSON.stringify({
                access_token: s.accessToken,
                token_type: 'bearer',
                expires_in: 7200,
                refresh_token: s.refreshToken,
                id_token: s.idToken,
                created_at: 1,
              }),
            },
          },
          {
            request: {
              method: 'GET',
              url: `http://127.0.0.1:3000/oauth/token/info?access_token=${s.accessToken}`,
              headers: { 'PRIVATE-TOKEN': s.pat },
            },
            response: {
              status: 200,
              headers: { 'content-type': 'text/html' },
              body: `<form><input type="hidden" name="authenticity_token" value="${s.csrf}"><input name="user[password]"></form>`,
            },
          },
        ],
        reproduce: `npx idp-conformance run --suite grants --rule PKCE-VERIFIER-LENGTH --seed 1234567 --runs 100 --target 'https://ci:${s.password}@127.0.0.1:3000/?private_token=${s.pat}'`,
      },
      {
        id: 'tokens.refresh-rotation',
        suite: 'tokens',
        title: 'The old refresh token dies on refresh',
        rules: ['TOK-REFRESH-ROTATION'],
        status: 'failed',
        durationMs: 301,
        message: `The old refresh token still works: Authorization: Bearer ${s.accessToken}`,
        exchange: [
          {
            request: {
              method: 'POST',
              url: 'http://127.0.0.1:3000/oauth/token',
              headers: { 'content-type': 'application/json', Authorization: `Bearer ${s.accessToken}` },
              body: JSON.stringify(
                {
                  grant_type: 'refresh_token',
                  refresh_token: s.refreshToken,
                  password: s.password,
                  device_code: s.deviceCode,
                },
                null,
                2,
              ),
            },
          },
        ],
        reproduce: 'npx idp-conformance run --suite tokens --rule TOK-REFRESH-ROTATION --seed 1234567',
      },
      {
        id: 'cors.preflight-token',
        suite: 'cors',
        title: 'Preflight on /oauth/token answers',
        rules: ['CORS-PREFLIGHT-TOKEN'],
        status: 'warned',
        durationMs: 15,
        message: 'OPTIONS /oauth/token answered 404 (should-level rule)',
      },
      {
        id: 'device.slow-down',
        suite: 'device',
        title: 'Polling too fast gives slow_down',
        rules: ['DEV-SLOW-DOWN'],
        status: 'skipped',
        durationMs: 0,
        message: 'needs clock control (capability clock missing)',
      },
      {
        id: 'pagination.offset-walk',
        suite: 'pagination',
        title: 'Following next visits every item once',
        rules: ['PAG-LINK-NEXT'],
        status: 'passed',
        durationMs: 640,
      },
      {
        id: 'pagination.keyset-walk',
        suite: 'pagination',
        title: 'Keyset traversal is complete',
        rules: ['PAG-LINK-NEXT'],
        status: 'passed',
        durationMs: 410,
      },
    ],
  };
}

/** Asserts nothing from SECRETS survives in `output`; returns the leaked names for a clear failure message. */
export function leakedSecrets(output: string): string[] {
  const basic = Buffer.from(`app:${SECRETS.clientSecret}`).toString('base64');
  const all: Record<string, string> = { ...SECRETS, basicCredential: basic };
  return Object.entries(all)
    .filter(([, value]) => output.includes(value))
    .map(([name]) => name);
}
