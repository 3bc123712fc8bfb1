/**
 * A run's report shows at most SHOWN_EXCHANGE_CHARS of exchanges: each exchange is bounded, but a
 * target failing every check with six exchanges of bodies that JSON escapes sixfold made reports
 * past what `report merge` reads (MAX_REPORT_BYTES). Past the budget an exchange keeps its request
 * line and status, and says why.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REPORT_BYTES } from '../../reporters/read.js';
import type { Exchange } from '../../suites/report/model.js';
import {
  BODY_LIMIT,
  createExchangeBudget,
  HEADER_VALUE_LIMIT,
  KEPT_HEADERS,
  LEFT_OUT_HEADERS,
  SHOWN_EXCHANGE_CHARS,
} from '../../suites/runner/redact.js';

/** The largest exchange a report shows: every part at its bound, the body all control characters. */
function largest(n: number): Exchange {
  const headers: Record<string, string> = {};
  for (let i = 0; i < KEPT_HEADERS.count; i++)
    headers[`x-h${i}`] = 'v'.repeat(KEPT_HEADERS.characters / KEPT_HEADERS.count);
  const body = '\u0001'.repeat(BODY_LIMIT);
  return {
    request: { method: 'POST', url: `http://127.0.0.1:1/${n}/${'p'.repeat(HEADER_VALUE_LIMIT)}`, headers, body },
    response: { status: 400, headers, body },
  };
}

describe('the exchanges a run shows', () => {
  it('are whole while they fit, then their request line and status with the reason', () => {
    const shown = createExchangeBudget(3 * JSON.stringify(largest(0)).length);
    const all = Array.from({ length: 5 }, (_, i) => shown(largest(i)));
    expect(all.slice(0, 3).map((e) => e.request.body?.length)).toEqual([BODY_LIMIT, BODY_LIMIT, BODY_LIMIT]);
    for (const [i, brief] of all.slice(3).entries()) {
      expect(brief.request.method).toBe('POST');
      expect(brief.request.url.startsWith(`http://127.0.0.1:1/${i + 3}/`)).toBe(true);
      expect(brief.request.url.length).toBeLessThan(250);
      expect(brief.request.body).toBeUndefined();
      expect(brief.response).toEqual({
        status: 400,
        headers: {
          [LEFT_OUT_HEADERS]: expect.stringMatching(/left out: the run's report shows \d+ characters of exchanges/),
        },
      });
    }
  });

  it('keep a run failing every check, six of the largest exchanges each, under what report merge reads', () => {
    const shown = createExchangeBudget();
    let size = 0;
    // 300 checks (twice today's), six exchanges each: about 40 MB whole.
    for (let i = 0; i < 300 * 6; i++) size += JSON.stringify(shown(largest(i))).length;
    expect(size).toBeLessThan(SHOWN_EXCHANGE_CHARS + 300 * 6 * 1024);
    expect(size).toBeLessThan(MAX_REPORT_BYTES / 1.5);
  });
});
