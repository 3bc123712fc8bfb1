/**
 * Where a request comes from: the control API and the pages' forms refuse one from elsewhere, and
 * the brute-force throttle counts its failures apart (so a page on another site, or on a name
 * rebound onto ours, can neither read secrets, nor post a form as the developer, nor lock the
 * harness's account).
 */
import { overHttps } from './oauth/session.js';
import type { Ctx, Sim } from './types.js';

/**
 * Whether the request's Host is one the simulator answers as itself: `name:port` entries match
 * exactly, bare names any port. serve() sets the list (controlHostsFor). Unset, as in the
 * in-process and msw adapters, any: there the caller's code builds the URL itself, no name is
 * resolved on the way, so no page can rebind one onto the simulator.
 */
export function hostAllowed(sim: Sim, url: URL): boolean {
  const allowed = sim.options.controlHosts;
  if (!allowed) return true;
  const host = url.host.toLowerCase();
  const name = url.hostname.toLowerCase();
  return allowed.some((entry) => {
    const e = entry.toLowerCase();
    return e === host || e === name;
  });
}

/**
 * The origins a same-origin page of ours has: the one the request was sent to, and a fixed
 * issuer's; none when the Host is not ours. After a DNS rebinding a page's name resolves here and
 * the browser sends Host and Origin both with that name: equal, yet not our origin.
 */
export function ownOrigin(ctx: Ctx, origin: string): boolean {
  if (!hostAllowed(ctx.sim, ctx.url)) return false;
  const scheme = overHttps(ctx.sim, ctx.request) ? 'https:' : 'http:';
  if (origin === `${scheme}//${ctx.url.host}`) return true;
  const { issuer } = ctx.sim.options;
  return issuer !== undefined && origin === new URL(issuer).origin;
}

/** `same-site` is elsewhere too: the site of an IP literal spans all its ports. */
const BROWSER_SAME_ORIGIN = new Set(['same-origin', 'none']);

/**
 * What says a browser request comes from a page of another origin, as the words of a refusal
 * ("refuses …"), or undefined when nothing does: its Origin, when sent, is not ours (a rebound
 * Host's never is), or Sec-Fetch-Site names another site. A client that sends neither (the
 * harness, curl) is not such a request. The control API and the pages' forms refuse it; the
 * throttle counts its failures apart.
 */
export function browserElsewhere(ctx: Ctx): string | undefined {
  const origin = ctx.request.headers.get('origin');
  const site = ctx.request.headers.get('sec-fetch-site')?.toLowerCase() ?? null;
  // Our pages send Referrer-Policy: no-referrer, under which Chromium posts their forms with
  // Origin: null; Sec-Fetch-Site, which no page can set, then vouches for them (a sandboxed
  // frame's opaque origin is cross-site). Not on a Host not ours: a rebound page is same-origin.
  const vouched = origin === 'null' && site === 'same-origin' && hostAllowed(ctx.sim, ctx.url);
  if (origin !== null && !vouched && !ownOrigin(ctx, origin)) return 'requests from another origin (Origin header)';
  if (site !== null && !BROWSER_SAME_ORIGIN.has(site)) return 'cross-site browser requests (Sec-Fetch-Site header)';
  return undefined;
}

/**
 * A request from elsewhere than our own pages and clients: sent to a Host not ours (a rebound
 * name), or a browser request a page of another origin made.
 */
export function fromElsewhere(ctx: Ctx): boolean {
  return !hostAllowed(ctx.sim, ctx.url) || browserElsewhere(ctx) !== undefined;
}
