/**
 * Where a browser request comes from: the control API refuses one from elsewhere, and the
 * brute-force throttle counts its failures apart (so a page on another site can neither read
 * secrets nor lock the harness's account).
 */
import { overHttps } from './oauth/session.js';
import type { Ctx } from './types.js';

/** The origins a same-origin page of ours has: the one the request was sent to, and a fixed issuer's. */
export function ownOrigin(ctx: Ctx, origin: string): boolean {
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

/** A browser request a page of another origin made: its Origin is not ours, or Sec-Fetch-Site says so. */
export function browserFromElsewhere(ctx: Ctx): boolean {
  const origin = ctx.request.headers.get('origin');
  return (origin !== null && !ownOrigin(ctx, origin)) || siteElsewhere(ctx);
}
