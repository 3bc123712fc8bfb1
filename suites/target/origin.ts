/**
 * Where the harness may send a request: the one decision, taken where every request leaves
 * (runner/http.ts) and where the browser driver intercepts Chromium's. Like python-requests'
 * rebuild_auth and undici's cross-origin redirect handling, but stricter: every request of the
 * harness may carry a credential (a token, a client secret, a password, a cookie), and a URL the
 * target hands out may carry one in its query, so nothing at all goes to an origin that is not the
 * target's (baseUrl's, plus the config's trustedOrigins), and nothing from https to http.
 */

/**
 * An authority we can judge the same way the wire reads it: host[:port], no userinfo, no escapes
 * (and the host written as the URL parser reads it: originGuard).
 */
const PLAIN_AUTHORITY = /^https?:\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?(?=[/?#]|$)/i;

/** A host as a reason quotes it: PLAIN_AUTHORITY's characters only, bounded. */
const inertHost = (host: string) => (host.length > 64 ? `${host.slice(0, 64)}…` : host);

/** Why a request to `url` may not leave the harness, or undefined when it may. */
export type OriginGuard = (url: string) => string | undefined;

/** The origins the harness may reach: baseUrl's and those the config trusts. */
export const allowedOrigins = (baseUrl: string, trusted: readonly string[] = []): string[] => [
  ...new Set([baseUrl, ...trusted].map((o) => new URL(o).origin)),
];

/**
 * Why the wire and the URL parser would not read `url` as one host, or undefined: the target's
 * transport splits the raw text, WHATWG parses it, and they agree only on a plain authority whose
 * host is written as it reads. The parser reads 127.0.0.1. (a trailing dot), 0x7f000001 and 127.1
 * as 127.0.0.1; the wire asks the resolver for the name as written (review 24: ENOTFOUND, the token
 * on the request). Case aside: a name is the host it is; an IPv6 address is read alike by both.
 */
export function unplainHost(url: string): string | undefined {
  const written = PLAIN_AUTHORITY.exec(url)?.[1];
  if (written === undefined || !URL.canParse(url)) return 'is not a plain http(s) URL of a host';
  const { hostname } = new URL(url);
  const host = written.toLowerCase();
  if (!host.startsWith('[') && host !== hostname)
    return `writes its host ${inertHost(written)}, which reads as ${hostname}: not one host for the wire and the URL parser`;
  return undefined;
}

export function originGuard(baseUrl: string, trusted: readonly string[] = []): OriginGuard {
  const base = new URL(baseUrl);
  const allowed = new Set(allowedOrigins(baseUrl, trusted));
  return (url) => {
    const unplain = unplainHost(url);
    if (unplain) return unplain;
    const { origin, protocol } = new URL(url);
    if (base.protocol === 'https:' && protocol === 'http:') return `goes from https to http (${origin})`;
    if (!allowed.has(origin)) return `leaves the target's origin (${base.origin}) for ${origin}`;
    return undefined;
  };
}
