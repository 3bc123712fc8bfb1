/** The device verification page (RFC 8628 §3.3) and the pages its machine rows name. */
import type { MachineRow } from '../../spec/index.js';
import { FIELDS, decisionButtons, esc, hidden, messagePage, page } from './layout.js';
import type { Answer } from '../http.js';

export function deviceForm(csrf: string, userCode: string, username: string, error?: string, status = 200): Answer {
  return page(
    status,
    'Connect a device',
    `${error ? `<p id="error" role="alert">${esc(error)}</p>` : ''}
<p>Signed in as <strong id="username">${esc(username)}</strong>. Enter the code shown on your device.</p>
<form id="device" method="post" action="/oauth/device">
${hidden(FIELDS.csrf, csrf)}
<label>User code <input type="text" name="user_code" value="${esc(userCode)}" autocomplete="one-time-code" required></label>
${decisionButtons('Authorize', 'Deny')}
</form>`,
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
