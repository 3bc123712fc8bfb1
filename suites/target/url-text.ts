/**
 * URLs as the user gave them, read and quoted without what must not be shown: a user or password
 * (user:password@), a query or fragment (where tokens ride). No dependencies: `simulate` and
 * `proxy` quote their flags with it without loading the suites.
 */

/** `http://user:pass@host`: a password in a URL is echoed wherever the URL is shown. */
export const hasUserinfo = (url: string): boolean => /^[a-z][\w+.-]*:\/\/[^/?#]*@/i.test(url);

/** The URL with any user and password replaced, for a message that must quote it. */
export const withoutUserinfo = (url: string): string => url.replace(/^([a-z][\w+.-]*:\/\/)[^/?#]*@/i, '$1…@');

/** `?…` or `#…` after the authority: a base URL gets paths appended, so a query there is a mistake, and often a token. */
export const hasQueryOrFragment = (url: string): boolean => /^[a-z][\w+.-]*:\/\/[^?#]*[?#]/i.test(url);

/** The URL as a message may quote it: no user or password, no query or fragment (where tokens ride). */
export function quotableUrl(url: string): string {
  const shown = withoutUserinfo(url);
  const cut = shown.search(/[?#]/);
  return cut < 0 ? shown : `${shown.slice(0, cut + 1)}…`;
}

export const NO_QUERY =
  'must not carry a query or fragment (paths are appended to it): give tokens in a --config file (personalAccessToken, applications)';
