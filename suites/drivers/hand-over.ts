/**
 * Where the provider hands the user back to an application (RFC 6749 §3.1.2): the redirect URI
 * itself, with the provider's parameters added to its query. The same URL up to its query, not a
 * prefix of it: `https://app/cb.evil` or `https://app/cb/../x` is another address, and a provider
 * that sends the code there has not redirected back to the redirect_uri.
 */
import type { TargetConfig } from '../types.js';

const parsed = (url: string): URL | undefined => (URL.canParse(url) ? new URL(url) : undefined);

/** Does `url` address `redirectUri`: scheme, host, port and path alike, and its own query parameters kept? */
export function handsOverTo(url: string, redirectUri: string): boolean {
  const to = parsed(url);
  const uri = parsed(redirectUri);
  if (!to || !uri) return false;
  return (
    to.protocol === uri.protocol &&
    to.host === uri.host &&
    to.pathname === uri.pathname &&
    [...uri.searchParams].every(([name, value]) => to.searchParams.getAll(name).includes(value))
  );
}

/** The redirect URIs of the config's applications. */
export function redirectUrisOf(config: TargetConfig): string[] {
  return Object.values(config.applications ?? {})
    .map((a) => a?.redirectUri)
    .filter((u): u is string => !!u);
}

/** Does `url` hand over to one of `redirectUris`? */
export const handsOverToAny = (url: string, redirectUris: string[]): boolean =>
  redirectUris.some((r) => handsOverTo(url, r));

/** An authorization response's parameters (RFC 6749 §4.1.2, §4.1.2.1). */
const RESPONSE_PARAMS = ['code', 'error', 'state'];

/** What an authorization response hands over or refuses with: a code, a token (RFC 6749 §4.2.2), an error. */
const ANSWERS = ['code', 'access_token', 'id_token', 'error'];

/**
 * An authorization response's parameters, wherever they come: the query, or the fragment for the
 * response types and modes that use it (RFC 6749 §4.2.2, §4.2.2.1; response_mode=fragment, a
 * hybrid answer). The one reader of them, for the checks and the drivers alike.
 */
export function redirectParams(redirect: URL): URLSearchParams {
  const query = redirect.searchParams;
  if (ANSWERS.some((k) => query.has(k))) return query;
  const fragment = new URLSearchParams(redirect.hash.replace(/^#/, ''));
  return ANSWERS.some((k) => fragment.has(k)) ? fragment : query;
}

/** A code or a token in the redirect (query or fragment): the request was granted. */
export const granted = (redirect?: URL): boolean =>
  !!redirect && ['code', 'access_token'].some((k) => redirectParams(redirect).has(k));

/**
 * Is a redirect off the provider, before any decision, the sign-in going on elsewhere (Ory Hydra's
 * login application, a federated sign-in) rather than the provider's answer to the application?
 * Neither to the origin of a redirect URI (the config's, or this request's `asked`) nor carrying
 * an authorization response in its query or fragment: a code sent to a lookalike address is still
 * the provider's answer, judged as such.
 */
export function signInGoesOn(url: string, redirectUris: readonly string[], asked?: string | null): boolean {
  const to = parsed(url);
  if (!to) return false;
  const fragment = new URLSearchParams(to.hash.slice(1));
  if (RESPONSE_PARAMS.some((p) => to.searchParams.has(p) || fragment.has(p))) return false;
  const origins = [...redirectUris, ...(asked ? [asked] : [])].map((u) => parsed(u)?.origin);
  return !origins.includes(to.origin);
}
