/**
 * Fault `unencoded-slash-accepted` only: reads `/projects/group/sub/project/...` as if the
 * namespaced path had been sent encoded, the lenient behaviour the source forbids (404 is right).
 */
import { dataset } from '../data/index.js';
import type { Middleware, Sim, SimRequest } from '../types.js';
import type { Answer } from '../http.js';
import { withUrl } from '../request.js';

const PREFIX = '/api/v4/projects/';

// Not async: without the fault it returns next()'s own promise (an async wrapper costs ticks per request).
export const unencodedSlash: Middleware = (request, sim, next) => {
  if (!sim.fault('unencoded-slash-accepted')) return next();
  return lenient(request, sim, next);
};

async function lenient(request: SimRequest, sim: Sim, next: () => Answer | Promise<Answer>): Promise<Answer> {
  const url = new URL(request.url);
  if (!url.pathname.startsWith(PREFIX)) return next();
  const segments = url.pathname.slice(PREFIX.length).split('/');
  for (let k = segments.length; k >= 2; k--) {
    let candidate: string;
    try {
      candidate = segments.slice(0, k).map(decodeURIComponent).join('/');
    } catch {
      return next();
    }
    if (dataset(sim).catalog.projects.byPath(candidate)) {
      const rest = segments.slice(k).join('/');
      url.pathname = PREFIX + encodeURIComponent(candidate) + (rest ? `/${rest}` : '');
      return sim.answer(withUrl(request, url.href));
    }
  }
  return next();
}
