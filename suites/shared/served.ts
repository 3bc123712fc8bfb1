/** The one judgement of an endpoint every suite reaches for, by the check that reports its absence. */
import type { CheckContext, HttpResponse } from '../types.js';
import { absentBy, CORE_ENDPOINTS } from '../runner/capabilities.js';
import { broke } from './rules.js';

type CoreEndpoint = (typeof CORE_ENDPOINTS)[number]['capability'];

/**
 * `res`, an answer of the `endpoint` its reporter asked, must show the endpoint served: an answer
 * that says it is absent (404, 405, a redirect of a POST, as start-up reads them) fails the rule
 * that says it answers, alone, and ends the check. No body, media type or effect of the answer
 * that never came is judged besides (one cause, one blame).
 */
export function expectServed(t: CheckContext, res: HttpResponse, endpoint: CoreEndpoint): void {
  const e = CORE_ENDPOINTS.find((c) => c.capability === endpoint)!;
  t.expect(
    !absentBy(res, e.method),
    `${e.method} ${e.path} answered ${res.status}: the provider has no ${e.name} there`,
    broke([e.rule], { status: res.status }),
  );
}
