import type { Ctx } from '../types.js';

/** The issuer and base of every absolute URL we hand out: fixed by options, else the request's origin. */
export function issuer(ctx: Ctx): string {
  const base = ctx.sim.options.issuer ?? ctx.origin;
  // One origin answers almost every request: its issuer is kept, not cut again per request.
  if (base !== last.base) last = { base, issuer: base.replace(/(?<!\/)\/+$/, '') };
  return last.issuer;
}
let last = { base: '', issuer: '' };
