/**
 * The grants checks a browser run plays: each ends its authorize pages another way, so together
 * they take the driver through every ending it knows. The whole grants suite is explored in
 * process (the release sweep, the fault matrix), where a run costs no browser; in Chromium each
 * authorize costs a page of its own, and the other grants checks only end their pages one of
 * these ways again.
 */
export const GRANTS_PER_PAGE_ENDING = [
  // approve: sign in, consent (then "Continue" where the provider has one); the code is redeemed once
  'grants.code-single-use',
  // deny: the error redirect after the consent page
  'grants.consent-denied',
  // any state string through the pages (History API URLs on a script-drawn one), and none when none was sent
  'grants.state-unchanged',
  // a hand-over to a loopback redirect URI at a port the config does not name
  'grants.loopback-redirect-any-port',
  // a refusal redirected before any consent
  'grants.response-type-code-only',
  // an error page (drawn in place by a script), with no redirect
  'grants.authorize-unregistered-redirect',
];
