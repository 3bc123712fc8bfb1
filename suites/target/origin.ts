/**
 * Where the harness may send a request: the one decision, taken where every request leaves
 * (runner/http.ts) and where the browser driver intercepts Chromium's. Like python-requests'
 * rebuild_auth and undici's cross-origin redirect handling, but stricter: every request of the
 * harness may carry a credential (a token, a client secret, a password, a cookie), and a URL the
 * target hands out may carry one in its query, so nothing at all goes to an origin that is not the
 * target's (baseUrl's, plus the config's trustedOrigins), and nothing from https to http.
 */

/** An authority we can judge the same way the wire reads it: host[:port], no userinfo, no escapes. */
const PLAIN_AUTHORITY = /^https?:\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?(?=[/?#]|$)/i;

/** Why a request to `url` may not leave the harness, or undefined when it may. */
export type OriginGuard = (url: string) => string | undefined;

/** The origins the harness may reach: baseUrl's and those the config trusts. */
export const allowedOrigins = (baseUrl: string, trusted: readonly string[] = []): string[] => [
  ...new Set([baseUrl, ...trusted].map((o) => new URL(o).origin)),
];

export function originGuard(baseUrl: string, trusted: readonly string[] = []): OriginGuard {
  const base = new URL(baseUrl);
  const allowed = new Set(allowedOrigins(baseUrl, trusted));
  return (url) => {
    // The target's transport splits the raw text, WHATWG parses it: they agree only on plain authorities.
    if (!PLAIN_AUTHORITY.test(url) || !URL.canParse(url)) return 'is not a plain http(s) URL of a host';
    const { origin, protocol } = new URL(url);
    if (base.protocol === 'https:' && protocol === 'http:') return `goes from https to http (${origin})`;
    if (!allowed.has(origin)) return `leaves the target's origin (${base.origin}) for ${origin}`;
    return undefined;
  };
}
