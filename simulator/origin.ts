/**
 * Where a request comes from: the control API refuses one from elsewhere, and the brute-force
 * throttle counts its failures apart (so a page on another site, or on a name rebound onto ours,
 * can neither read secrets nor lock the harness's account).
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

/** Whether Sec-Fetch-Site, when sent, names a request from another page than ours. */
export function siteElsewhere(ctx: Ctx): boolean {
  const site = ctx.request.headers.get('sec-fetch-site');
  return site !== null && !BROWSER_SAME_ORIGIN.has(site.toLowerCase());
}

/**
 * A request from elsewhere than our own pages and clients: sent to a Host not ours (a rebound
 * name), or a browser request a page of another origin made (its Origin is not ours, or
 * Sec-Fetch-Site says so).
 */
export function fromElsewhere(ctx: Ctx): boolean {
  if (!hostAllowed(ctx.sim, ctx.url)) return true;
  const origin = ctx.request.headers.get('origin');
  return (origin !== null && !ownOrigin(ctx, origin)) || siteElsewhere(ctx);
}
