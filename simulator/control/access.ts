/**
 * Who may use the control API (AUTH-CONTROL-API-LOCAL). It hands out every secret (`GET config`)
 * and changes state, so it answers the harness and same-origin clients only:
 * - the Host names the simulator's own address or an --allow-host: a DNS-rebinding guard (a page
 *   on a name that resolves here sends that name), not authentication;
 * - no browser request from another origin: an `Origin`, when sent, is ours, and `Sec-Fetch-Site`
 *   is absent, `same-origin` or `none` (typed in the address bar). `same-site` is refused too: the
 *   site of an IP literal spans all its ports, so another local server is the same site;
 * - no request the browser makes ahead of a visit (`Sec-Purpose`: a prefetch, a prerender), which
 *   Chromium sends as `none` whichever page's speculation rules asked;
 * - bodies are JSON only, and every request but GET and HEAD says so (an empty one too): a form,
 *   text or untyped body is what another site can send without a preflight (a JSON one needs a
 *   preflight, and the control API grants none).
 */
import { ControlError } from '../errors.js';
import { isJson, mediaType } from '../request.js';
import { browserElsewhere, hostAllowed } from '../origin.js';
import type { Ctx } from '../types.js';

/** Why this control request is refused, or undefined when it may go on. */
export async function controlRefusal(ctx: Ctx): Promise<ControlError | undefined> {
  const { url, request } = ctx;
  if (!hostAllowed(ctx.sim, url))
    return new ControlError(
      `the control API answers only the simulator's own address, not Host ${url.host} (see --allow-host)`,
      403,
    );
  const elsewhere = browserElsewhere(ctx);
  if (elsewhere) return new ControlError(`the control API refuses ${elsewhere}`, 403);
  // A prefetch or prerender by speculation rules, which a page of any site can ask for: Chromium
  // sends it as `none`, as if typed. No page may make the browser fetch the control API unseen.
  if (request.headers.has('sec-purpose') || /prefetch|prerender/i.test(request.headers.get('purpose') ?? ''))
    return new ControlError(
      'the control API refuses requests the browser makes ahead of a visit (Sec-Purpose header)',
      403,
    );
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  // Even an empty body needs the JSON type: a blind POST without one (a reset) is what a page
  // can send, and a simulator reached by a non-loopback name gets no Sec-Fetch-* to refuse it by.
  if (!isJson(mediaType(request)) || (await ctx.body()).kind === 'form')
    return new ControlError('the control API takes only JSON bodies (Content-Type: application/json)', 415);
  return undefined;
}
