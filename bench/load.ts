/**
 * One load run with autocannon (npm), in this process, against a server in another process:
 * requests per second, p50 and p99 latency, and how many answers had another status than the
 * one the case expects (a figure measured on the wrong answer is worthless, so it is reported).
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Per connection, before each request: may rewrite the request from the connection's context. */
  setupRequest?: (request: LoadRequest, context: Record<string, unknown>) => LoadRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: IncomingHttpHeaders) => void;
}

export interface LoadResult {
  rps: number;
  /** requests answered */
  requests: number;
  p50: number;
  p99: number;
  /** answers with a status other than the expected one */
  unexpected: number;
  /** requests that got no answer (socket errors, timeouts) */
  failed: number;
}

interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}

// A variable specifier: autocannon ships no type declarations; the shape used is declared above.
const PACKAGE = 'autocannon';
const autocannon = (
  (await import(PACKAGE)) as { default: (options: Record<string, unknown>) => Promise<AutocannonResult> }
).default;

export async function load(
  url: string,
  request: LoadRequest,
  options: { connections: number; seconds: number; expect: number; amount?: number },
): Promise<LoadResult> {
  const start = performance.now();
  const result = await autocannon({
    url,
    connections: options.connections,
    // A number of requests instead of a duration (a smoke run's few per connection), read every
    // tenth of a second: autocannon ends a run only on its sampling tick, a second by default.
    ...(options.amount
      ? { amount: Math.max(options.amount, options.connections), sampleInt: 100 }
      : { duration: options.seconds }),
    requests: [request],
  });
  const seconds = (performance.now() - start) / 1000;
  const expected = result.statusCodeStats[String(options.expect)]?.count ?? 0;
  const answered = Object.values(result.statusCodeStats).reduce((n, s) => n + s.count, 0);
  return {
    rps: result.requests.total / seconds,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: answered - expected,
    failed: result.errors + result.timeouts,
  };
}
