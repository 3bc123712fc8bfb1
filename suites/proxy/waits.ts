/**
 * Retry-After on the traffic: a rate-limited answer (rate.ts isRateLimited) that names a wait is
 * remembered per path and credential, as a digest (never the credential), until that wait is over;
 * each request of the same client to the same path sent before it is the client's habit
 * (ignores-retry-after), not the provider's failure.
 */
import { isRateLimited, retryAfterSeconds } from '../target/rate.js';
import type { ClientSink } from './client.js';
import { digest, type Flows, type Observed } from './flows.js';

/** The two clocks read a request apart: a retry this close to the end of the wait is in time. */
const SLACK_MS = 500;

/** Who sent the request: its credential (a header), else the client_id it named, else anonymous. */
function callerOf(ex: Observed, params: () => URLSearchParams): string {
  const headers = ex.requestHeaders;
  return (
    headers.get('authorization') ??
    headers.get('private-token') ??
    headers.get('job-token') ??
    params().get('client_id') ??
    ''
  );
}

/**
 * `params`: the request's parameters (query, and a form body's), read only for a request without a credential header.
 * `paced`: the answer is one the protocol paces itself (a device poll's slow_down), not a wait to remember.
 * Whether the request was noted as sent inside a wait (its haste is said once: judge.ts).
 */
export function noteRetryAfter(
  ex: Observed,
  path: string,
  params: () => URLSearchParams,
  flows: Flows,
  paced: boolean,
  client?: ClientSink,
): boolean {
  const key = digest(`${path}\n${callerOf(ex, params)}`);
  const until = flows.waits.get(key, ex.at);
  const early = until !== undefined && (ex.startedAt ?? ex.at) < until - SLACK_MS;
  if (early) client?.({ habit: 'ignores-retry-after', where: `${ex.method} ${path}` });
  if (!paced && isRateLimited(ex.status, ex.responseHeaders)) {
    const seconds = retryAfterSeconds(ex.responseHeaders.get('retry-after'), () => ex.at);
    if (seconds !== null && seconds > 0) flows.waits.set(key, ex.at, Math.max(until ?? 0, ex.at + seconds * 1000));
  }
  return early;
}
