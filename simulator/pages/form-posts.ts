/**
 * The pages' forms (sign-in, consent, device, applications) answer posts from our own pages only
 * (review 25). SameSite=Lax keeps the session cookie off a cross-site post, but a page on another
 * port of 127.0.0.1 is the same site, and a sign-in needs no session: such a page could post the
 * developer's consent, or sign the browser in to an account of its choosing with a pre-session
 * cookie it set (login CSRF). Refused as the control API refuses a browser request from another
 * origin (origin.ts, one judgment); a client that sends neither Origin nor Sec-Fetch-Site (the
 * harness's form driver, curl) is served as before.
 */
import type { OperationInfo } from '../../spec/index.js';
import type { Answer } from '../http.js';
import { browserElsewhere, hostAllowed } from '../origin.js';
import type { Ctx } from '../types.js';
import { messagePage } from './layout.js';

const pageForms = new WeakMap<OperationInfo, boolean>();

/** A POST whose answers are HTML pages (spec/openapi.yaml): a form of the pages. */
export function isPageForm(op: OperationInfo): boolean {
  let known = pageForms.get(op);
  if (known === undefined) {
    const answers = Object.values(op.raw.responses ?? {});
    known = op.method === 'post' && answers.some((a) => 'content' in a && a.content?.['text/html'] !== undefined);
    pageForms.set(op, known);
  }
  return known;
}

/** The 403 page of a form post from elsewhere, or undefined when it may go on. */
export function formPostRefusal(ctx: Ctx): Answer | undefined {
  const elsewhere = browserElsewhere(ctx);
  if (!elsewhere) return undefined;
  // Behind a front that passes its own Host (idp-conformance proxy does), the Origin is the front's.
  const host = hostAllowed(ctx.sim, ctx.url) ? '' : ` (Host ${ctx.url.host} is not the simulator's; see --allow-host)`;
  return messagePage(403, 'Request refused', `The simulator's forms refuse ${elsewhere}${host}.`);
}
