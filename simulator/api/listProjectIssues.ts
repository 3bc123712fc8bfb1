/**
 * GET /api/v4/projects/:id/issues. created_after / created_before are binary searches (issues
 * are created in iid order); state and labels filter what remains.
 */
import { dataset, type IssueRec } from '../data/index.js';
import { filtered, lowerBound, slice } from '../data/seq.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { parseTimestamp } from './dates.js';
import { findProject } from './lookup.js';
import { keyOrdering, paginate } from './pagination.js';
import { list, parsePairs, queryPairs, str } from './params.js';
import { renderIssue } from './render.js';

export const listProjectIssues = endpoint(PUBLIC_READ, (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const params = parsePairs(queryPairs(ctx));
  let seq = dataset(ctx.sim).issuesOf(project);
  const after = str(params, 'created_after');
  const before = str(params, 'created_before');
  if (after !== undefined) {
    const t = parseTimestamp('created_after', after);
    seq = slice(
      seq,
      lowerBound(seq, (i: IssueRec) => i.createdAt <= t),
    );
  }
  if (before !== undefined) {
    const t = parseTimestamp('created_before', before);
    seq = slice(
      seq,
      0,
      lowerBound(seq, (i: IssueRec) => i.createdAt < t),
    );
  }
  const state = str(params, 'state');
  const labels = list(params, 'labels');
  if ((state && state !== 'all') || labels) {
    seq = filtered(
      seq,
      (i: IssueRec) =>
        (!state || state === 'all' || i.state === state) && (!labels || labels.every((l) => i.labels.includes(l))),
    );
  }
  const ordering = keyOrdering(
    seq,
    (i) => i.createdAt,
    (i) => i.id,
  );
  return paginate(
    ctx,
    {
      orderings: { created_at: ordering, id: ordering },
      defaultOrder: { orderBy: 'created_at', sort: 'desc' },
      render: (i) => renderIssue(ctx, project, i),
    },
    caller !== null,
  );
});
