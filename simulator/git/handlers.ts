/**
 * Git over HTTPS: GET /:namespace/:project.git/info/refs and the upload-pack / receive-pack POSTs.
 * HTTP Basic with any username and a token as the password: read_repository (or
 * write_repository, or api) to fetch, write_repository (or api) to push. No or a dead token: 401
 * with a Basic challenge (git then asks for credentials); a live token without the scope: 403.
 */
import { checkAccessToken } from '../credentials.js';
import { text } from '../http.js';
import { dataset } from '../data/index.js';
import { limits } from '../../spec/index.js';
import type { Ctx, Handler, Handlers, Sim } from '../types.js';
import { httpBackend, type CgiRequest } from './backend.js';
import { advertisement, forgetAdvertisements } from './advertisements.js';
import { fullMessage, pushBody, pushEstimate, pushesFull, reservePush, servedRoot } from './storage.js';

const READ = ['read_repository', 'write_repository', 'api'];
const WRITE = ['write_repository', 'api'];

function basicPassword(authorization: string | null | undefined): { user: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const cut = decoded.indexOf(':');
  return cut < 0 ? null : { user: decoded.slice(0, cut), password: decoded.slice(cut + 1) };
}

const projectOf = (sim: Sim, params: Record<string, string>) =>
  dataset(sim).catalog.projects.byPath(`${params.namespace}/${params.project}`);

/**
 * Whether a Git request may send a body up to the Git limit, decided from its head before any of
 * the body is read: only one to a project that exists, with a live token as its Basic password.
 * Any other gets the normal limit, as its answer (404, 401) needs no body (review 20: eight
 * uploads of 32 MiB without credentials were held whole in memory until requestTimeout).
 */
export function gitBodyWelcome(sim: Sim, params: Record<string, string>, authorization: string | null | undefined) {
  const basic = basicPassword(authorization);
  return basic !== null && projectOf(sim, params) !== undefined && checkAccessToken(sim, basic.password).ok;
}

const challenge = () =>
  text(401, 'HTTP Basic: Access denied. Use a token with read_repository or write_repository as the password.\n', {
    'www-authenticate': 'Basic realm="GitLab"',
  });

function gitHandler(service: (ctx: Ctx) => 'git-upload-pack' | 'git-receive-pack' | null, suffix: string): Handler {
  return async (ctx) => {
    const wanted = service(ctx);
    if (!wanted)
      return text(403, 'Git over HTTP needs the smart protocol: ?service=git-upload-pack or git-receive-pack\n');
    const project = projectOf(ctx.sim, ctx.params);
    if (!project) return text(404, 'The project you were looking for could not be found.\n');
    const basic = basicPassword(ctx.request.headers.get('authorization'));
    if (!basic) return challenge();
    const check = checkAccessToken(ctx.sim, basic.password);
    if (!check.ok) return challenge();
    const needed = (wanted === 'git-receive-pack' ? WRITE : READ).filter(
      (s) => !(s === 'write_repository' && ctx.sim.fault('git-write-repository-refused')),
    );
    if (!needed.some((s) => check.token.scopes.includes(s)) && !ctx.sim.fault('git-any-token')) {
      return text(403, `HTTP Basic: Access denied. The token needs one of the scopes ${needed.join(', ')}.\n`);
    }
    // LIM-GIT-PUSHES-BOUNDED: a full simulator refuses a push at its first request, whose answer
    // a git client shows (`remote: ...`), and at its POST (a client that skipped the first). 403,
    // not 413: the refusal is the simulator's full store, not this request's content (RFC 9110
    // §15.5.4, §15.5.14), and the first request is a GET with none.
    if (wanted === 'git-receive-pack' && pushesFull(ctx.sim)) return text(403, fullMessage(ctx.sim));
    const root = await servedRoot(ctx.sim, project.id);
    const sent = ctx.method === 'POST' ? Buffer.from(await ctx.request.arrayBuffer()) : Buffer.alloc(0);
    const push = suffix === '/git-receive-pack';
    const body = push ? await pushBody(sent, ctx.request.headers.get('content-encoding')) : sent;
    const most = limits().gitRequestBodyMaxBytes;
    const estimate = !push ? 0 : body === null ? Infinity : pushEstimate(body);
    if (body === null || estimate > most)
      return text(413, `413 Request Entity Too Large: the push could store more than ${most} bytes\n`);
    const request: CgiRequest = {
      projectRoot: root,
      pathInfo: `/repo.git${suffix}`,
      method: ctx.method === 'HEAD' ? 'GET' : ctx.method,
      query: ctx.url.search.slice(1),
      contentType: ctx.request.headers.get('content-type'),
      contentEncoding: push && body !== sent ? null : ctx.request.headers.get('content-encoding'),
      gitProtocol: ctx.request.headers.get('git-protocol'),
      remoteUser: check.user.username,
      body,
    };
    if (suffix === '/info/refs') return advertisement(request);
    if (!push) return httpBackend(request);
    // Again now that the body is read: pushes sent together each passed the check above before
    // any had set its estimate aside. Checked and set aside in one tick, the total stays under the
    // bound plus one push however many come at once.
    if (pushesFull(ctx.sim)) return text(403, fullMessage(ctx.sim));
    const room = reservePush(ctx.sim, project.id, estimate);
    // A push may move refs: forget the advertisements it could overtake, and those made meanwhile.
    forgetAdvertisements(root);
    return httpBackend(request).finally(async () => {
      forgetAdvertisements(root);
      await room.done();
    });
  };
}

const fromQuery = (ctx: Ctx) => {
  const s = ctx.query.get('service');
  return s === 'git-upload-pack' || s === 'git-receive-pack' ? s : null;
};

export const gitHandlers: Handlers = {
  gitInfoRefs: gitHandler(fromQuery, '/info/refs'),
  gitUploadPack: gitHandler(() => 'git-upload-pack', '/git-upload-pack'),
  gitReceivePack: gitHandler(() => 'git-receive-pack', '/git-receive-pack'),
};
