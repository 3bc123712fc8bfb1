/**
 * What a journey through the device verification page that pressed no decision means, for both
 * page drivers and the page's own check. The source's row (L84) authorizes the device when "the
 * user enters the user code and authenticates": a page that took the code, then the sign-in (in
 * this visit, or the session the driver's browser already holds), then shows only a result
 * (FusionAuth's "your device is now connected": no form, no control, no word of a decision, at
 * another URL than the page opened) has taken the approval there, which the polls judge. Such a
 * page offers no way to refuse: a denial is beyond any driver, said as the harness's limit. Any
 * other end (no code sent, nobody signed in, links that approve or deny) decided nothing.
 */
import type { AuthorizeOutcome } from '../types.js';
import { HarnessError } from '../runner/errors.js';
import { controlPattern } from './defaults.js';
import { parseForms, parseLinks } from './html.js';

/** What a page driver's visit did, beside where it ended. */
export interface Journey extends AuthorizeOutcome {
  /** The approve or deny control was pressed. */
  decided: boolean;
  /** A form carrying the user code went out. */
  codeSent: boolean;
  /** The configured user signed in, in this visit or earlier with the same browser (its session). */
  signedIn: boolean;
  stepped: boolean;
  consentSeen: boolean;
}

const DECISION_WORDS = new RegExp(`${controlPattern('approve')}|${controlPattern('deny')}`, 'i');

/** The journey from `pageUrl` took the code and the sign-in and ended on a plain result page, past the page opened. */
export function connectedWithoutDecision(journey: Journey, pageUrl: string): boolean {
  const { response } = journey;
  return (
    !journey.decided &&
    journey.codeSent &&
    journey.signedIn &&
    response.status < 400 &&
    response.url !== '' &&
    response.url !== pageUrl &&
    parseForms(response.text).length === 0 &&
    !/<button\b/i.test(response.text) &&
    // Links that approve or deny are a decision the driver could not make, not a result.
    !parseLinks(response.text).some((link) => DECISION_WORDS.test(link.label))
  );
}

/** Said where a denial was asked of a page that connects the device on the sign-in. */
export const NO_WAY_TO_REFUSE =
  'the device verification page takes the user code and the sign-in and offers no way to refuse (L84: that is the approval)';

/**
 * A denial asked of such a page: the harness's limit, not the provider's failure. Typed so that a
 * check making many decisions (the state model) can drop the denial and go on; only
 * device.verification-page says it.
 */
export class NoWayToRefuse extends HarnessError {
  override name = 'NoWayToRefuse';
}

/** After a driver's journey through the device page: the approval taken, or why nothing was decided. */
export function expectDeviceDecided(decision: 'approve' | 'deny', result: Journey, pageUrl: string): void {
  if (result.decided) return;
  const connected = connectedWithoutDecision(result, pageUrl);
  if (connected && decision === 'approve') return;
  if (connected) throw new NoWayToRefuse(`${NO_WAY_TO_REFUSE}: the denial is not tested`);
  throw new HarnessError(`no ${decision} button on the device verification page (status ${result.response.status})`);
}
