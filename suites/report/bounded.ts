/**
 * A saved report bounded as a run records one, for rendering: a run's report is cut where it is
 * recorded, but one made by hand (or by an older version) read by `report merge` could hold
 * megabytes in any string, and every format quoted them whole. Each renderer shows the report
 * through boundReport; a run's report comes out as it went in.
 */
import type { Exchange, Report } from './model.js';
import { type Masker, shownMessage } from './cut.js';
import { redactExchange, redactText } from './redact.js';
import { shownExchange } from '../runner/redact.js';

/** A saved report's masking: its patterns alone (no secret of the run is known), nothing masked by value. */
const patterns: Masker = { text: (text, cut) => redactText(text, { cut }), reach: 0 };

/**
 * An exchange within the bounds (a run's all are) as it is: the report masks it after, once; one
 * past them cut as a run cuts it, masked before the cut. Its method, which a run never cuts (the
 * harness's own, or a browser's), is bounded as any other string.
 */
function bounded(recorded: Exchange): Exchange {
  const method = shownMessage(recorded.request.method, patterns);
  const exchange =
    method === recorded.request.method ? recorded : { ...recorded, request: { ...recorded.request, method } };
  const same = JSON.stringify(shownExchange(exchange, (kept) => kept)) === JSON.stringify(exchange);
  return same ? exchange : shownExchange(exchange, (kept) => redactExchange(kept));
}

/**
 * The report with every string bounded as a message is (shownMessage: its lines and their length),
 * its checks' exchanges as a run records them (shownExchange); the input is not modified. Every
 * field, named or added later (titles, counterexamples, reproduce lines, the diff and client
 * sections), as inertReport walks them: the model's shape is fixed and shallow.
 */
export function boundReport(report: Report): Report {
  return boundTree(report) as Report;
}

function boundTree(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return shownMessage(value, patterns);
  if (Array.isArray(value)) return key === 'exchange' ? value.map(bounded) : value.map((v) => boundTree(v));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, boundTree(v, k)]));
  return value;
}
