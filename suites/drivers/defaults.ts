/**
 * What the form and browser drivers assume when the target config's `driver` section says
 * nothing: the sign-in path and field names the source's provider uses, and consent buttons found
 * by what they say. The simulator writes its own exact values into the config it serves, so the
 * harness never needs simulator code to play its pages.
 */
export const SIGN_IN_DEFAULTS = {
  signInPath: '/users/sign_in',
  loginField: 'user[login]',
  passwordField: 'user[password]',
} as const;

/**
 * Words in the name of a username field that stands alone (identifier-first sign-in: the password
 * is asked on the next page), besides the configured `loginField`: `login`, `loginfmt`, `username`,
 * `email`, `identifier`, as the common providers name it. Not `user` alone: the device page's
 * `user_code` is no username.
 */
export const IDENTIFIER_WORDS = ['login', 'username', 'user_name', 'email', 'identifier'] as const;

/** A submit control whose value or text names the decision (CSS plus Playwright's :has-text). */
const decisionSelector = (words: string[]) =>
  words
    .flatMap((word) => [
      `button[value="${word}" i]`,
      `input[type="submit"][value="${word}" i]`,
      `button:has-text("${word}")`,
    ])
    .join(', ');

/** Browser driver defaults for the consent buttons, used when the config names no selector. */
export const DECISION_SELECTORS = {
  approve: decisionSelector(['approve', 'authorize', 'allow']),
  deny: decisionSelector(['deny', 'reject', 'decline', 'cancel']),
} as const;

/**
 * Browser driver defaults for sign-in applications (no form to submit with Enter): the button that
 * signs in, and a control that leads on once the decision is made (a "Continue" button or link).
 */
export const STEP_SELECTORS = {
  signIn: `${decisionSelector(['sign in', 'log in', 'login'])}, button[type="submit"]`,
  /** The button that sends the username alone, on a page with no form to submit with Enter. */
  identify: `${decisionSelector(['next', 'continue'])}, button[type="submit"]`,
  continue: ['continue', 'proceed', 'return to', 'back to']
    .flatMap((word) => [
      `button:has-text("${word}")`,
      `a:has-text("${word}")`,
      `input[type="submit"][value="${word}" i]`,
    ])
    .join(', '),
} as const;

/**
 * What a consent page's checkbox of a scope has in its name (Spring Authorization Server's
 * `scope`, Ory Hydra's `grant_scope`): an approval ticks those left unticked, no other box.
 */
export const SCOPE_BOX_NAME = 'scope';
