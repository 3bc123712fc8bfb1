/**
 * Endpoints discovery puts on another origin than the base URL (Google's token, revocation,
 * device, userinfo and key set endpoints are not on its authorization endpoint's host). On an
 * origin the config trusts (`trustedOrigins`), the harness sends that endpoint's requests there,
 * and only those; on one it does not, nothing is sent there, and what needs the endpoint is
 * untested, saying why (oidc.discovery reports the endpoint off the target's origin, once).
 */
import type { Http } from '../types.js';
import { AUTHORIZE_DEVICE_PATH, DISCOVERY_ENDPOINTS, atSourcePath } from '../shared/oauth.js';

/** Besides them, where discovery names it (RFC 8628 §4), the device authorization endpoint. */
const ROUTABLE: Readonly<Record<string, string>> = {
  ...DISCOVERY_ENDPOINTS,
  device_authorization_endpoint: AUTHORIZE_DEVICE_PATH,
};

/** A URL a request went to, as a message names it: its path under the base URL, else the URL (a query left out). */
export function shownUrl(baseUrl: string, url: string): string {
  const bare = url.split('?')[0];
  return bare.startsWith(`${baseUrl}/`) ? bare.slice(baseUrl.length) : bare;
}

export interface Elsewhere {
  /** Source path → the absolute URL on a trusted origin its requests go to. */
  routes: Map<string, string>;
  /** Source path → why nothing is sent to where discovery puts it. */
  away: Map<string, string>;
}

/**
 * Where discovery `doc` puts each endpoint that is not where the source puts it: on another
 * origin, or on the base URL's own origin at a path of the provider's own (Keycloak's
 * /realms/NAME/protocol/openid-connect/token, Okta's /oauth2/v1/token). The target's own origin is
 * its own, so such an endpoint is asked there; oidc.discovery says the path differs (OIDC-DISCOVERY,
 * L104-L113), once, and the rest of the run tests what the endpoint does. Before, a same-origin
 * endpoint at its own path was taken for absent: one must rule failed and every check that needed
 * it went untested, while the same layout on a trusted other origin was followed.
 */
export function endpointsElsewhere(
  http: Pick<Http, 'baseUrl' | 'leaves'>,
  doc: Record<string, unknown> | null,
): Elsewhere {
  const found: Elsewhere = { routes: new Map(), away: new Map() };
  const base = new URL(http.baseUrl).origin;
  for (const [member, path] of Object.entries(ROUTABLE)) {
    const value = doc?.[member];
    if (typeof value !== 'string' || !URL.canParse(value)) continue;
    const url = new URL(value);
    if (url.origin === base && atSourcePath(url, [http.baseUrl], path)) continue;
    const why = http.leaves(url.href);
    if (!why) found.routes.set(path, `${url.origin}${url.pathname}${url.search}`);
    else
      found.away.set(
        path,
        `discovery's ${member} is ${url.origin}${url.pathname}, which ${why}: nothing was sent there (trustedOrigins lists the provider's other origins; oidc.discovery reports it on OIDC-DISCOVERY)`,
      );
  }
  return found;
}
