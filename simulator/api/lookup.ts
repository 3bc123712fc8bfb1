/**
 * Resolving the `:id` of /projects/:id and /groups/:id: a numeric id or a URL-encoded namespaced
 * path (the router already decoded `group%2Fsub%2Fproject` into one parameter; an unencoded path
 * never reaches here: it matches no route). A renamed project's old path answers with a redirect
 * to the same URL under the new path, from the release that introduced it. A miss is thrown.
 */
import { ApiError, ApiRedirect } from '../errors.js';
import { dataset, type GroupRec, type ProjectRec } from '../data/index.js';
import type { Ctx } from '../types.js';
import type { Caller } from './auth.js';
import { ruleInForce } from '../release.js';

export function findProject(ctx: Ctx, ref: string, caller: Caller | null): ProjectRec {
  const { catalog } = dataset(ctx.sim);
  if (ref.includes('/') && ctx.sim.fault('encoded-slash-rejected')) throw new ApiError(404, '404 Project Not Found');
  const project = /^\d+$/.test(ref) ? catalog.projects.get(Number(ref)) : catalog.projects.byPath(ref);
  if (project) {
    if (project.visibility === 'private' && !caller) throw new ApiError(404, '404 Project Not Found');
    return project;
  }
  const moved = catalog.redirects.get(ref);
  if (moved && ruleInForce(ctx.sim, 'ENC-MOVED-REDIRECT') && !ctx.sim.fault('no-moved-redirect')) {
    const oldSegment = encodeURIComponent(ref);
    const cut = ctx.rawPath.toLowerCase().indexOf(oldSegment.toLowerCase());
    const path =
      cut < 0
        ? ctx.rawPath
        : ctx.rawPath.slice(0, cut) +
          encodeURIComponent(moved.pathWithNamespace) +
          ctx.rawPath.slice(cut + oldSegment.length);
    const status = ctx.method === 'GET' || ctx.method === 'HEAD' ? 301 : 308;
    throw new ApiRedirect(`${ctx.origin}${path}${ctx.url.search}`, status);
  }
  throw new ApiError(404, '404 Project Not Found');
}

export function findGroup(ctx: Ctx, ref: string, caller: Caller | null): GroupRec {
  const { catalog } = dataset(ctx.sim);
  const group = /^\d+$/.test(ref) ? catalog.groups.get(Number(ref)) : catalog.groups.byPath(ref);
  if (!group || (group.visibility === 'private' && !caller)) throw new ApiError(404, '404 Group Not Found');
  return group;
}
