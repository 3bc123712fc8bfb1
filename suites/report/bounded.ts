/**
 * A saved report bounded as a run records one, for rendering: a run's report is cut where it is
 * recorded, but one made by hand (or by an older version) read by `report merge` could hold
 * megabyte messages and header values, and every format quoted them whole. Each renderer shows
 * the report through boundReport; a run's report comes out as it went in.
 */
import type { Exchange, Report } from './model.js';
import { type Masker, shownMessage } from './cut.js';
import { redactExchange, redactText } from './redact.js';
import { shownExchange } from '../runner/redact.js';

/** A saved report's masking: its patterns alone (no secret of the run is known), nothing masked by value. */
const patterns: Masker = { text: (text, cut) => redactText(text, { cut }), reach: 0 };

/**
 * An exchange within the bounds (a run's all are) as it is: the report masks it after, once; one
 * past them cut as a run cuts it, masked before the cut.
 */
function bounded(exchange: Exchange): Exchange {
  const same = JSON.stringify(shownExchange(exchange, (kept) => kept)) === JSON.stringify(exchange);
  return same ? exchange : shownExchange(exchange, (kept) => redactExchange(kept));
}

/** The report with its checks' messages and exchanges bounded (shownMessage, shownExchange); the input is not modified. */
export function boundReport(report: Report): Report {
  return {
    ...report,
    checks: report.checks.map((result) => ({
      ...result,
      ...(result.message !== undefined ? { message: shownMessage(result.message, patterns) } : {}),
      ...(result.failures
        ? { failures: result.failures.map((f) => ({ ...f, message: shownMessage(f.message, patterns) })) }
        : {}),
      ...(result.exchange ? { exchange: result.exchange.map(bounded) } : {}),
    })),
  };
}
