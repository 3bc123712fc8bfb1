/**
 * What every grant module exports (after node-oidc-provider's lib/actions/grants). No list of
 * parameters: the source's table (spec/source-spec.md, token endpoint) says what a client sends,
 * and RFC 6749 §3.2 has the server ignore any parameter it does not recognise, so such a list
 * could only ever be documentation duplicating the source.
 */
import { json, type Answer } from '../../http.js';
import type { Ctx, Sim } from '../../types.js';
import { noStore } from '../errors.js';
import type { Params } from '../params.js';

export interface Grant {
  /** grant_type value. */
  type: string;
  /** Offered at this release, offering and flag state? */
  available(sim: Sim): boolean;
  /** Synchronous where nothing waits (the pending poll): a promise costs every request microtask hops. */
  handle(ctx: Ctx, params: Params): Answer | Promise<Answer>;
}

/** A token response: JSON, never cached; absent (undefined) fields are left out by JSON.stringify. */
export function tokenResponse(sim: Sim, body: Record<string, unknown>): Answer {
  return json(200, body, noStore(sim));
}
