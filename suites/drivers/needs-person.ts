/**
 * Pages of a sign-in that only a person can get past: a one-time code (a second factor), a
 * CAPTCHA, a link sent by e-mail. A driver that meets one stops there, says it once for the run
 * (sign-in.ts, signInNeedsPerson) and sends nothing it would have to guess.
 */
import { openingTags, pageText } from './html.js';

/**
 * A field asking for a one-time code: `autocomplete=one-time-code`, or a name saying so (GitLab's
 * `otp_attempt`, Keycloak's `otp`, Okta's `passcode`, Google's `totpPin`). A device page's user code
 * is no second factor, whatever its autocomplete says (the simulator's says one-time-code).
 */
const ONE_TIME_NAME = /otp|passcode|mfa|2fa|two_?factor|one_?time|verification_?code|security_?code|sms_?code/i;
const USER_CODE = /user_?code/i;
const NO_ENTRY = new Set(['hidden', 'checkbox', 'radio', 'submit', 'button', 'image', 'reset']);
/** reCAPTCHA, hCaptcha, Cloudflare Turnstile, Friendly Captcha, or a provider's own: by class, id, name or script. */
const CAPTCHA = /captcha|turnstile/i;
/** A page that sent the user a link: "Check your email", "We sent a sign-in link to…", a magic link. */
const EMAIL_LINK =
  /\bcheck your (?:e-?mail|inbox)\b|\bwe(?:'ve| have)? (?:just )?(?:sent|e-?mailed) (?:you )?(?:an? )?(?:e-?mail|(?:sign-?in |login |verification |magic )?link)\b|\bmagic link\b/i;

/** What on this page needs a person before the sign-in can go on, said as the thing asked; or undefined. */
export function needsPerson(html: string): string | undefined {
  for (const [name, attrs] of openingTags(html)) {
    if (
      CAPTCHA.test(`${attrs.class ?? ''} ${attrs.id ?? ''} ${attrs.name ?? ''} ${attrs.src ?? ''}`) ||
      'data-sitekey' in attrs
    )
      return 'a CAPTCHA';
    if (name !== 'input' || NO_ENTRY.has((attrs.type ?? 'text').toLowerCase())) continue;
    const field = `${attrs.name ?? ''} ${attrs.id ?? ''}`;
    if (USER_CODE.test(field)) continue;
    if (/one-time-code/i.test(attrs.autocomplete ?? '') || ONE_TIME_NAME.test(field))
      return 'a one-time code (a second factor)';
  }
  return undefined;
}

/** Does the page say a link was sent by e-mail (read where the driver finds nothing to press)? */
export const awaitsEmail = (html: string): boolean => EMAIL_LINK.test(pageText(html));
