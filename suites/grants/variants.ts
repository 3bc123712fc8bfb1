/** Generated variations the grants checks share: look-alike redirect URIs, words, the narrow application. */
import fc from 'fast-check';
import type { AppRole, CheckContext } from '../types.js';

/** RFC 8252 §7.3/§8.3: loopback hosts, where any port must be accepted. */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
export const isLoopback = (uri: URL) => LOOPBACK.has(uri.hostname);

/**
 * Ways a redirect_uri can differ from the registered one while looking alike. A loopback URI is
 * never varied by its port alone (RFC 8252 §7.3 requires any port to be accepted there): the
 * mutation then returns the registered URI, which the checks skip, and path, host or scheme vary.
 */
export const redirectMutations: Record<string, (uri: URL, word: string) => string> = {
  'extra path segment': (u, w) => new URL(`${u.pathname.replace(/\/$/, '')}/${w}`, u).href,
  'extra query parameter': (u, w) => {
    const v = new URL(u);
    v.searchParams.append(w, '1');
    return v.href;
  },
  'other port': (u) => {
    if (isLoopback(u)) return u.href;
    const v = new URL(u);
    v.port = String(((Number(v.port) || (v.protocol === 'https:' ? 443 : 80)) % 60000) + 1);
    return v.href;
  },
  'other host': (u, w) => {
    const v = new URL(u);
    v.hostname = `${w}.invalid`;
    return v.href;
  },
  'other scheme': (u) => {
    const v = new URL(u);
    v.protocol = v.protocol === 'https:' ? 'http:' : 'https:';
    return v.href;
  },
  'fragment added': (u, w) => `${u.href.replace(/#.*/, '')}#${w}`,
};

export const mutationName = fc.constantFrom(...Object.keys(redirectMutations));

/** A short lowercase word (path segment, parameter name, host label). */
export const word = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
  minLength: 1,
  maxLength: 12,
});

/** The application the scope checks use: the one registered with the fewest scopes, so others lie outside it. */
export function narrowApp(t: CheckContext): AppRole {
  return t.config.applications?.limited ? 'limited' : 'confidential';
}
