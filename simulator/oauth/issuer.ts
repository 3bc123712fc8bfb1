import type { Ctx } from '../types.js';

/** The issuer and base of every absolute URL we hand out: fixed by options, else the request's origin. */
export function issuer(ctx: Ctx): string {
  return (ctx.sim.options.issuer ?? ctx.origin).replace(/(?<!\/)\/+$/, '');
}
