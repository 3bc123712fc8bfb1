/**
 * A device authorization answer (interval 5 s, 300 s to live) and the form of a poll of its code,
 * as the proxy's judge tests feed them (judge-flows.test.ts, throttled.test.ts).
 */
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const START = {
  device_code: 'd'.repeat(40),
  user_code: 'ABCD-EFGH',
  verification_uri: 'http://127.0.0.1:1/oauth/device',
  verification_uri_complete: 'http://127.0.0.1:1/oauth/device?user_code=ABCD-EFGH',
  expires_in: 300,
  interval: 5,
};

export const pollForm = { grant_type: DEVICE_GRANT, device_code: START.device_code, client_id: 'app' };
