/**
 * A provider that answers JSON only when asked (GitHub's token and device endpoints): without
 * `Accept: application/json` its token and device authorization answers are form-encoded. The
 * deviation of oauth-deviations.test.ts and the diff of test/diff/json-only-when-asked.test.ts.
 */
import { jsonOf, type Asked, type Rewrite } from './oauth-proxy.js';

/** The endpoints whose encoding such a provider negotiates. */
export const negotiates = (asked: Asked) =>
  asked.url.pathname === '/oauth/token' || asked.url.pathname === '/oauth/authorize_device';

/** Asked for JSON the way clients ask: Accept names application/json. */
export const asksJson = (asked: Asked) => /\bapplication\/json\b/i.test(String(asked.headers.accept ?? ''));

export const jsonOnlyWhenAsked: Rewrite = {
  answer(asked, answer) {
    const body = negotiates(asked) ? jsonOf(answer) : undefined;
    if (!body || asksJson(asked)) return false;
    answer.head.set('content-type', ['application/x-www-form-urlencoded; charset=utf-8']);
    answer.body = Buffer.from(new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString());
    return true;
  },
};

/** The checks that read token and device authorization responses on their way to their own rules. */
export const JSON_READERS = [
  'grants.token-response-fields',
  'grants.token-response-headers',
  'grants.token-error-body',
  'grants.code-single-use',
  'grants.refresh-rotation',
  'grants.json-body',
  'grants.password-response',
  'device.authorization-response',
  'device.authorization-timings',
  'device.token-response',
  'device.slow-down',
  'tokens.revoke-access-token',
  'tokens.info-presentations',
  'oidc.id-token',
  'oidc.userinfo',
];
