/**
 * GET /api/v4/projects. Anonymous callers see public projects only. `search` filters by name or
 * path (this is where `+` versus `%2B` shows: `search=C%2B%2B` finds "C++ Tools", `search=C++`
 * searches for "C  "). Keyset by id, both directions.
 */
import { dataset, type ProjectRec } from '../data/index.js';
import { filtered } from '../data/seq.js';
import { endpoint, PUBLIC_READ } from './endpoint.js';
import { idOrdering, paginate } from './pagination.js';
import { bool, parsePairs, queryPairs, str } from './params.js';
import { projectJson, renderProject } from './render.js';
import { jsonText, Reply, type Answer } from '../http.js';
import { settingsGeneration } from '../control/settings.js';
import type { Ctx } from '../types.js';
import type { Caller } from './auth.js';

/**
 * Whole pages, prebuilt: a page's bytes depend only on whether a caller is signed in, the origin,
 * the path and query as sent, the projects (only ever added), the settings and what is fixed per
 * simulator (release, faults, offering). A page is kept per those and dropped when a project is
 * created or a setting changes; bounded by a clear past PAGES_KEPT. Answers are built fresh from
 * it (middlewares add headers to an answer).
 */
const PAGES_KEPT = 256;

interface Pages {
  count: number;
  settings: number;
  /** The body as bytes: a 13.6 KB page is then written as it is, never encoded again per answer. */
  byKey: Map<string, { body: Buffer; headers: Record<string, string> }>;
}

export const listProjects = endpoint(PUBLIC_READ, (ctx, caller) => {
  const pages = ctx.sim.state<Pages>('api.projectPages', () => ({ count: -1, settings: -1, byKey: new Map() }));
  const { projects } = dataset(ctx.sim).catalog;
  const generation = settingsGeneration(ctx.sim);
  if (pages.count !== projects.count || pages.settings !== generation || pages.byKey.size >= PAGES_KEPT)
    Object.assign(pages, { count: projects.count, settings: generation, byKey: new Map() });
  const key = `${caller ? 'signed-in' : 'anonymous'} ${ctx.origin}${ctx.rawPath}${ctx.url.search}`;
  const kept = pages.byKey.get(key);
  if (kept) return jsonText(200, kept.body, kept.headers);
  const answer = projectsPage(ctx, caller);
  if (answer instanceof Reply && answer.status === 200 && typeof answer.body === 'string') {
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => (headers[name] = value));
    pages.byKey.set(key, { body: Buffer.from(answer.body), headers });
  }
  return answer;
});

function projectsPage(ctx: Ctx, caller: Caller | null): Answer {
  const params = parsePairs(queryPairs(ctx));
  const search = str(params, 'search')?.toLowerCase();
  const archived = bool(params, 'archived');
  const visibility = str(params, 'visibility');
  const { projects } = dataset(ctx.sim).catalog;
  let seq = projects.byId;
  const filters = search !== undefined || archived !== undefined || visibility !== undefined;
  if (!caller && !filters) {
    // the anonymous view, kept until a project is created
    const cache = ctx.sim.state('api.publicProjects', () => ({ count: -1, seq }));
    if (cache.count !== projects.count)
      Object.assign(cache, { count: projects.count, seq: filtered(seq, (p: ProjectRec) => p.visibility === 'public') });
    seq = cache.seq;
  } else if (filters) {
    // a filter reads every project: projects are few (hundreds per seed-size unit)
    seq = filtered(
      seq,
      (p: ProjectRec) =>
        (caller !== null || p.visibility === 'public') &&
        (search === undefined || p.name.toLowerCase().includes(search) || p.path.toLowerCase().includes(search)) &&
        (archived === undefined || p.archived === archived) &&
        (visibility === undefined || p.visibility === visibility),
    );
  }
  return paginate(
    ctx,
    {
      orderings: { id: idOrdering(seq, (p) => p.id) },
      defaultOrder: { orderBy: 'id', sort: 'desc' },
      render: (p) => renderProject(ctx, p),
      renderText: (p) => projectJson(ctx, p),
    },
    caller !== null,
  );
}
