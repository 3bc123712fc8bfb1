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
