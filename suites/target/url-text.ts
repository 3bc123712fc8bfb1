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

/**
 * The URL as a message may quote it: no user or password, no query or fragment (where tokens ride).
 * Read as loosely as a URL parser reads it: everything before the last `@` ahead of the query goes,
 * whatever the spelling (`http:\\u:pw@h/`, `HTTP:/u:pw@h/`, a space or tab in front: review 31 saw
 * each print its password), so a path with an `@` loses its host too, never a password.
 */
export function quotableUrl(url: string): string {
  const cut = url.search(/[?#]/);
  const before = cut < 0 ? url : url.slice(0, cut);
  const at = before.lastIndexOf('@');
  const scheme = /^[a-z][\w+.-]*:[\\/]*/i.exec(before)?.[0] ?? '';
  const shown = at < 0 ? before : `${scheme}…@${before.slice(at + 1)}`;
  return cut < 0 ? shown : `${shown}${url[cut]}…`;
}

export const NO_QUERY =
  'must not carry a query or fragment (paths are appended to it): give tokens in a --config file (personalAccessToken, applications)';
