/**
 * The device verification page (RFC 8628 §3.3) and the pages its machine rows name. Entering the
 * code only finds the device authorization; the user then decides on a confirmation that names
 * the application, its scopes and the code (§3.3: accept or decline the client's request; §5.4:
 * say a device is being connected and who asks). Before, the entry form's Authorize approved at
 * once, so another site that opened verification_uri_complete got a token after one click.
 */
import type { MachineRow } from '../../spec/index.js';
import type { Application } from '../store.js';
import { FIELDS, decisionButtons, esc, hidden, messagePage, page } from './layout.js';
import { consentTitle, grantRequest } from './consent.js';
import type { Answer } from '../http.js';

const errorLine = (error: string | undefined) => (error ? `<p id="error" role="alert">${esc(error)}</p>\n` : '');

/** The code entry: its one button sends the code to be looked up, never a decision. */
export function deviceForm(csrf: string, userCode: string, username: string, error?: string, status = 200): Answer {
  return page(
    status,
    'Connect a device',
    `${errorLine(error)}<p>Signed in as <strong id="username">${esc(username)}</strong>. Enter the code shown on your device.</p>
<form id="device" method="post" action="/oauth/device">
${hidden(FIELDS.csrf, csrf)}
<label>User code <input type="text" name="user_code" value="${esc(userCode)}" autocomplete="one-time-code" required></label>
<button type="submit">Continue</button>
</form>`,
  );
}

/** What the confirmation names: the device authorization the entered code found. */
export interface DeviceRequest {
  app: Application;
  scopes: readonly string[];
  /** The code as the device shows it (normalized). */
  userCode: string;
}

/** The confirmation, in the consent page's words: only its Authorize approves the device. */
export function deviceConfirmation(
  csrf: string,
  request: DeviceRequest,
  username: string,
  error?: string,
  status = 200,
): Answer {
  return page(
    status,
    consentTitle(request.app.name),
    `${errorLine(error)}${grantRequest(username, request.app.name, request.scopes)}
<p>It asks from a device showing the code <code id="user-code">${esc(request.userCode)}</code>. Authorize only if that is your device and you started this there.</p>
<form id="device-confirm" method="post" action="/oauth/device">
${hidden(FIELDS.csrf, csrf)}
${hidden('user_code', request.userCode)}
${decisionButtons('Authorize', 'Deny')}
</form>`,
    { name: 'device_confirm' },
  );
}

const RESULT_PAGES: Record<string, { title: string; message: string }> = {
  device_approved: { title: 'Device connected', message: 'The device is authorized. You can return to it now.' },
  device_denied: { title: 'Device refused', message: 'Access was denied. The device will not be connected.' },
  device_code_expired: { title: 'Code expired', message: 'This code has expired. Start again on your device.' },
  device_code_used: { title: 'Code already used', message: 'This code was already approved or denied.' },
};

/** The HTML answer a device machine row names by `result.page`. */
export function devicePage(row: MachineRow): Answer {
  const known = RESULT_PAGES[row.result.page ?? ''] ?? { title: 'Device', message: row.result.page ?? '' };
  return messagePage(row.result.status, known.title, known.message, { name: row.result.page });
}
