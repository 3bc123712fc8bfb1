/**
 * Pages of a sign-in that only a person can get past: a one-time code (a second factor), a
 * CAPTCHA, a link sent by e-mail. A driver that meets one stops there, says it once for the run
 * (sign-in.ts, signInNeedsPerson) and sends nothing it would have to guess. One list of names for
 * both drivers: patterns over the form driver's HTML, CSS for the browser driver's page (which also
 * sees into shadow roots).
 */
import { openingTags, pageText } from './html.js';

/**
 * What the name or id of a field asking for a one-time code has in it (GitLab's `otp_attempt`,
 * Keycloak's `otp`, Okta's `passcode`, Google's `totpPin`), besides `autocomplete=one-time-code`.
 * Not on a page that also asks for the password: a sign-in form's optional "OTP (if enabled)" is
 * left empty, and a refusal, if it comes, is said as one.
 */
const ONE_TIME_NAMES = [
  'otp',
  'passcode',
  'mfa',
  '2fa',
  'two_factor',
  'twofactor',
  'one_time',
  'onetime',
  'verification_code',
  'security_code',
  'sms_code',
];
/** A device page's user code is no second factor, whatever its autocomplete says (the simulator's says one-time-code). */
const USER_CODE_NAMES = ['user_code', 'usercode'];
/** reCAPTCHA, hCaptcha, Friendly Captcha, a provider's own, Cloudflare Turnstile: in a class, id, name or script. */
const CAPTCHA_NAMES = ['captcha', 'turnstile'];
const CAPTCHA_ATTRS = ['class', 'id', 'name', 'src'];
/** Inputs nobody types into. */
const NO_ENTRY = ['hidden', 'checkbox', 'radio', 'submit', 'button', 'image', 'reset'];

const ONE_TIME = 'a one-time code (a second factor)';
const CAPTCHA = 'a CAPTCHA';
const NEW_PASSWORD = 'a new password (the account must change its password)';

/**
 * What the name or id of a password field for a new password has in it, where its autocomplete
 * says nothing (a page marked only by names: `newPassword`, `confirmNewPassword`, `password-repeat`).
 */
const NEW_PASSWORD_NAMES = ['new', 'confirm', 'repeat', 'retype'];

/**
 * A password field for a new password: `autocomplete=new-password`, as Keycloak's "Update
 * password" and Okta's and Entra ID's expired-password pages mark theirs, or, unmarked as the
 * current one, a name or id that says so. Such a page asks for it twice (the new one and its
 * confirmation), beside the current password or not; a lone one is a sign-in's field marked so to
 * keep the browser from filling it, and is typed into as the sign-in's.
 */
export const NEW_PASSWORD_CSS = `input[type="password" i]:is([autocomplete~="new-password" i], :not([autocomplete~="current-password" i]):is(${NEW_PASSWORD_NAMES.flatMap((w) => [`[name*="${w}" i]`, `[id*="${w}" i]`]).join(', ')}))`;
/** The new-password fields of a page that asks for a new password: the new one and its confirmation. */
export const NEW_PASSWORD_FIELDS = 2;
/**
 * A sign-in's password field: not one for a new password, nor the current password of a form that
 * asks for a new one (Entra ID's "Update your password": current, new, confirm in one form).
 */
const SIGN_IN_PASSWORD_CSS = `input[type="password" i]:not(${NEW_PASSWORD_CSS}):not(form:has(${NEW_PASSWORD_CSS}) input)`;

const anyOf = (words: string[]) => new RegExp(words.join('|'), 'i');
const ONE_TIME_NAME = anyOf(ONE_TIME_NAMES);
const USER_CODE = anyOf(USER_CODE_NAMES);
const CAPTCHA_NAME = anyOf(CAPTCHA_NAMES);
const NEW_PASSWORD_NAME = anyOf(NEW_PASSWORD_NAMES);

/** `[attr*="word" i]` for each attribute and word. */
const containing = (attrs: string[], words: string[]) =>
  attrs.flatMap((attr) => words.map((word) => `[${attr}*="${word}" i]`)).join(', ');

/** The browser driver's selectors for the same: a field shown on the page, a CAPTCHA's trace anywhere in it. */
export const NEEDS_PERSON_SELECTORS: ReadonlyArray<{
  what: string;
  css: string;
  shown: boolean;
  atLeast?: number;
  /** Not on a page that shows one of these. */
  unless?: string;
}> = [
  {
    what: ONE_TIME,
    css: `html:not(:has(input[type="password" i])) input:not(${NO_ENTRY.map((t) => `[type="${t}" i]`).join(', ')}):not(${containing(['name', 'id'], USER_CODE_NAMES)}):is([autocomplete*="one-time-code" i], ${containing(['name', 'id'], ONE_TIME_NAMES)})`,
    shown: true,
  },
  { what: CAPTCHA, css: `${containing(CAPTCHA_ATTRS, CAPTCHA_NAMES)}, [data-sitekey]`, shown: false },
  // A new password asked twice, and no sign-in's password (a sign-in form beside a sign-up one is still a sign-in).
  {
    what: NEW_PASSWORD,
    css: NEW_PASSWORD_CSS,
    shown: true,
    atLeast: NEW_PASSWORD_FIELDS,
    unless: SIGN_IN_PASSWORD_CSS,
  },
];

/** A page that sent the user a link: "Check your email", "We sent a sign-in link to…", a magic link. */
const EMAIL_LINK =
  /\bcheck your (?:e-?mail|inbox)\b|\bwe(?:'ve| have)? (?:just )?(?:sent|e-?mailed) (?:you )?(?:an? )?(?:e-?mail|(?:sign-?in |login |verification |magic )?link)\b|\bmagic link\b/i;

/** Does an autocomplete attribute hold this token? */
const completes = (attrs: Record<string, string>, token: string) =>
  (attrs.autocomplete ?? '').toLowerCase().split(/\s+/).includes(token);

/** A password input's attributes ask for a new password (NEW_PASSWORD_CSS, read from the HTML). */
const forNewPassword = (attrs: Record<string, string>) =>
  completes(attrs, 'new-password') ||
  (!completes(attrs, 'current-password') && NEW_PASSWORD_NAME.test(`${attrs.name ?? ''} ${attrs.id ?? ''}`));

/**
 * What the page's fields ask for, in one pass over its tags. `password`: a sign-in's password
 * field (SIGN_IN_PASSWORD_CSS): the other password fields of a form that asks for a new password
 * are its current password. Each form runs from its tag to the next one's.
 */
function fieldsOf(html: string) {
  const found = { captcha: false, oneTime: false, password: false, newPasswords: 0 };
  const forms: Array<{ news: number; others: number }> = [{ news: 0, others: 0 }];
  for (const [name, attrs] of openingTags(html)) {
    if (CAPTCHA_ATTRS.some((a) => CAPTCHA_NAME.test(attrs[a] ?? '')) || 'data-sitekey' in attrs) {
      found.captcha = true;
      return found;
    }
    if (name === 'form') forms.push({ news: 0, others: 0 });
    const type = (attrs.type ?? 'text').toLowerCase();
    if (name === 'input' && type === 'password') {
      if (forNewPassword(attrs)) forms[forms.length - 1].news++;
      else forms[forms.length - 1].others++;
    }
    if (name !== 'input' || NO_ENTRY.includes(type)) continue;
    const field = `${attrs.name ?? ''} ${attrs.id ?? ''}`;
    if (USER_CODE.test(field)) continue;
    found.oneTime ||= /one-time-code/i.test(attrs.autocomplete ?? '') || ONE_TIME_NAME.test(field);
  }
  for (const form of forms) {
    found.newPasswords += form.news;
    // Outside any form (the first group) a password field is a sign-in's, as the selector has it.
    found.password ||= form.others > 0 && (form.news === 0 || form === forms[0]);
  }
  return found;
}

/** Does the page ask only for a new password (no sign-in form, whatever its password fields)? */
export const asksNewPassword = (html: string): boolean => {
  const found = fieldsOf(html);
  return found.newPasswords >= NEW_PASSWORD_FIELDS && !found.password;
};

/** What on this page needs a person before the sign-in can go on, said as the thing asked; or undefined. */
export function needsPerson(html: string): string | undefined {
  const found = fieldsOf(html);
  if (found.captcha) return CAPTCHA;
  // A lone new-password field is the sign-in's (see NEW_PASSWORD_CSS).
  if (found.password || found.newPasswords === 1) return undefined;
  return found.newPasswords >= NEW_PASSWORD_FIELDS ? NEW_PASSWORD : found.oneTime ? ONE_TIME : undefined;
}

/** Does the page say a link was sent by e-mail (read where the driver finds nothing to press)? */
export const awaitsEmail = (html: string): boolean => EMAIL_LINK.test(pageText(html));
