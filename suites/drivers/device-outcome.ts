/**
 * What a journey through the device verification page that pressed no decision means, for both
 * page drivers and the page's own check. The source's row (L84) authorizes the device when "the
 * user enters the user code and authenticates": a page that asks the code, then the sign-in, then
 * shows only a result (FusionAuth's "your device is now connected": no form, no control, at another
 * URL than the page opened) has taken the approval there, which the polls judge. Such a page offers
 * no way to refuse: a denial is beyond any driver, said as the harness's limit.
 */
import type { HttpResponse } from '../types.js';
import { HarnessError } from '../runner/errors.js';
import { parseForms } from './html.js';

/** The journey from `pageUrl` ended on a plain result page, past the page opened. */
export function connectedWithoutDecision(response: HttpResponse, pageUrl: string): boolean {
  return (
    response.status < 400 &&
    response.url !== '' &&
    response.url !== pageUrl &&
    parseForms(response.text).length === 0 &&
    !/<button\b/i.test(response.text)
  );
}

/** Said where a denial was asked of a page that connects the device on the sign-in. */
export const NO_WAY_TO_REFUSE =
  'the device verification page takes the user code and the sign-in and offers no way to refuse (L84: that is the approval)';

/** After a driver's journey through the device page: the approval taken, or why nothing was decided. */
export function expectDeviceDecided(
  decision: 'approve' | 'deny',
  result: { decided: boolean; response: HttpResponse },
  pageUrl: string,
): void {
  if (result.decided) return;
  const connected = connectedWithoutDecision(result.response, pageUrl);
  if (connected && decision === 'approve') return;
  throw new HarnessError(
    connected
      ? `${NO_WAY_TO_REFUSE}: the denial is not tested`
      : `no ${decision} button on the device verification page (status ${result.response.status})`,
  );
}
