/**
 * A CheckContext that records instead of requesting: the suites' own assertion helpers
 * (suites/shared/*.ts, grants/token-fields.ts) judge an exchange the proxy saw, and every
 * assertion that names rules becomes one verdict per rule. It sends nothing: a helper that
 * reaches for t.http, t.oauth or t.driver stops the judgement (the proxy only watches).
 */
import type { CheckContext, FailureDetails, HttpResponse } from '../types.js';

export interface Verdict {
  rule: string;
  ok: boolean;
  /** The assertion's sentence, for a failure (it never carries a token: the helpers' contract). */
  message?: string;
}

/** Thrown by expect/fail/harness/skip: the rest of this judgement depended on what failed. */
class Stop extends Error {}

const absent = (what: string) =>
  new Proxy(
    {},
    {
      get() {
        throw new Stop(`a passive judgement cannot use t.${what}`);
      },
    },
  );

export interface Recorder {
  t: CheckContext;
  verdicts: Verdict[];
}

export function recorder(): Recorder {
  const verdicts: Verdict[] = [];
  const note = (condition: unknown, message: string, details?: FailureDetails) => {
    // An assertion naming no rule proves nothing a per-rule report can show.
    for (const rule of details?.rules ?? [])
      verdicts.push(condition ? { rule, ok: true } : { rule, ok: false, message });
    return Boolean(condition);
  };
  const t = {
    http: absent('http'),
    oauth: absent('oauth'),
    driver: absent('driver'),
    soft: note,
    expect(condition: unknown, message: string, details?: FailureDetails) {
      if (!note(condition, message, details)) throw new Stop(message);
    },
    fail(message: string, details?: FailureDetails): never {
      note(false, message, details);
      throw new Stop(message);
    },
    harness(message: string): never {
      throw new Stop(message);
    },
    skip(message: string): never {
      throw new Stop(message);
    },
  } as unknown as CheckContext;
  return { t, verdicts };
}

/** Run a judgement; what stopped it (an expect that failed) is already recorded. */
export function judgeWith(judge: (t: CheckContext) => void): Verdict[] {
  const { t, verdicts } = recorder();
  try {
    judge(t);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  return verdicts;
}

/** What the helpers read of a response, built from what the proxy saw. */
export function observedResponse(url: string, status: number, headers: Headers, body: string): HttpResponse {
  return {
    status,
    headers,
    text: body,
    url,
    json<T>() {
      return JSON.parse(body) as T;
    },
  };
}
