/**
 * The simulator: one entry, `answer(request)`, that every adapter calls: the Fetch one
 * (`handle`: Request in, Response out; msw and in-process callers) and the Node one, which passes
 * a light request and writes the answer without making Fetch objects. Routing comes from spec/openapi.yaml by operationId; each
 * operation is a small handler module registered in oauth/ or api/.
 */
import {
  operations,
  profiles,
  faults as faultCatalogue,
  inRelease,
  limits,
  releaseProblem,
  type FaultName,
  type OperationInfo,
} from '../spec/index.js';
import { createClock } from './clock.js';
import { createRouter } from './router.js';
import { createStore, type Store } from './store.js';
import { createEvictor } from './evict.js';
import { json, Reply, type Answer } from './http.js';
import { isJson, mediaType, requestUrl } from './request.js';
import { HttpError } from './errors.js';
import { controlRefusal } from './control/access.js';
import { formPostRefusal, isPageForm } from './pages/form-posts.js';
import { errorFor } from './error-shape.js';
import type {
  Ctx,
  Handler,
  Handlers,
  InstanceSettings,
  Middleware,
  ParsedBody,
  ResolvedOptions,
  Sim,
  SimRequest,
  SimulatorOptions,
} from './types.js';
import { oauthGateOverrides, oauthHandlers, oauthMiddlewares, seedAccounts } from './oauth/index.js';
import { apiHandlers, apiMiddlewares } from './api/index.js';
import { gitBodyWelcome } from './git/handlers.js';
import { releaseRepositories } from './git/storage.js';

const handlers: Handlers = { ...oauthHandlers, ...apiHandlers };
const middlewares: Middleware[] = [...apiMiddlewares, ...oauthMiddlewares];

export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const p = profiles();
  const known = new Set<string>(faultCatalogue().map((f) => f.name));
  const isFault = (f: string): f is FaultName => known.has(f);
  const unknown = (options.faults ?? []).filter((f) => !isFault(f));
  if (unknown.length) throw new RangeError(`unknown fault ${unknown.join(', ')} (see spec/faults.yaml)`);
  const releaseWrong = options.release === undefined ? undefined : releaseProblem(options.release);
  if (releaseWrong) throw new RangeError(releaseWrong);
  const flags: Record<string, boolean> = {};
  for (const [name, info] of Object.entries(p.flags)) flags[name] = info.default;
  const settings = {} as Record<string, unknown>;
  for (const [name, info] of Object.entries(p.settings)) settings[name] = info.default;
  return {
    release: options.release ?? p.defaults.release,
    offering: options.offering ?? p.defaults.offering,
    flags: { ...flags, ...options.flags },
    settings: {
      ...(settings as unknown as InstanceSettings),
      ...options.settings,
      ...(options.devMode === undefined ? {} : { developmentMode: options.devMode }),
    },
    faults: (options.faults ?? []).filter(isFault),
    seed: options.seed ?? 1,
    seedSize: options.seedSize ?? 1,
    issuer: options.issuer,
    control: options.control ?? true,
    trustProxy: options.trustProxy ?? false,
    controlHosts: options.controlHosts,
    gitPushedMaxBytes: gitPushedBound(options.gitPushedMaxBytes),
  };
}

/** A lower bound for pushes (tests), never a higher one: the spec's limit is the most. */
function gitPushedBound(bytes: number | undefined): number | undefined {
  if (bytes === undefined) return undefined;
  if (!Number.isSafeInteger(bytes) || bytes < 0)
    throw new RangeError('gitPushedMaxBytes must be a whole number of bytes');
  return Math.min(bytes, limits().gitPushedMaxBytes);
}

/**
 * A form body whose URLSearchParams is made only if a handler reads it (OAuth handlers read
 * `text`). A class: an object literal with a getter builds its accessor and closure per request.
 */
class FormBody {
  readonly kind = 'form';
  private parsed?: URLSearchParams;
  constructor(readonly text: string) {}
  get form(): URLSearchParams {
    return (this.parsed ??= new URLSearchParams(this.text));
  }
}
const formBody = (text: string): ParsedBody => new FormBody(text);

/** A body read as text, by its media type (everything but multipart). */
function parseText(type: string, text: string): ParsedBody {
  if (text.length === 0) return { kind: 'none' };
  if (isJson(type)) {
    try {
      return { kind: 'json', json: JSON.parse(text) };
    } catch {
      return { kind: 'invalid', reason: 'body is not valid JSON' };
    }
  }
  if (type === '' || type === 'application/x-www-form-urlencoded') return formBody(text);
  return { kind: 'invalid', reason: `unsupported content type ${type}` };
}

/**
 * The body parsed now, when nothing needs waiting for: a GET, or an adapter that holds the whole
 * body already (textNow: the Node adapter). Undefined otherwise (a Fetch Request, multipart).
 */
function parseBodyNow(request: SimRequest): ParsedBody | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return { kind: 'none' };
  if (!request.textNow) return undefined;
  const type = mediaType(request);
  return type === 'multipart/form-data' ? undefined : parseText(type, request.textNow());
}

async function parseBody(request: SimRequest): Promise<ParsedBody> {
  const now = parseBodyNow(request);
  if (now) return now;
  const type = mediaType(request);
  if (type === 'multipart/form-data') {
    try {
      const data = await request.formData();
      const form = new URLSearchParams();
      for (const [k, v] of data) if (typeof v === 'string') form.append(k, v);
      return { kind: 'form', form };
    } catch {
      return { kind: 'invalid', reason: 'malformed multipart body' };
    }
  }
  return parseText(type, await request.text());
}

/** A handler's view of its request (a class: its origin and body are computed on first use, cheaply). */
class RequestCtx implements Ctx {
  readonly method: string;
  readonly rawPath: string;
  private parsed?: Promise<ParsedBody>;
  private parsedNow?: ParsedBody;

  constructor(
    readonly sim: Sim,
    readonly request: SimRequest,
    readonly url: URL,
    readonly op: OperationInfo,
    readonly params: Record<string, string>,
  ) {
    this.method = request.method;
    this.rawPath = url.pathname;
  }

  /** Read when asked: most answers (keys, POSTs) read no query. */
  get query(): URLSearchParams {
    return this.url.searchParams;
  }

  body(): Promise<ParsedBody> {
    return (this.parsed ??= this.parsedNow ? Promise.resolve(this.parsedNow) : parseBody(this.request));
  }

  bodyNow(): ParsedBody | undefined {
    return (this.parsedNow ??= this.parsed ? undefined : parseBodyNow(this.request));
  }

  /** Most answers (keys, token info, polls) never read it. */
  get origin(): string {
    return this.url.origin;
  }
}

function available(sim: Sim, op: OperationInfo): boolean {
  if (!sim.options.control && op.tags.includes('simulator')) return false;
  // A fault may keep an operation routed outside its release window (oauthGateOverrides).
  const inWindow = sim.inForce(op) || oauthGateOverrides[op.operationId]?.(sim) === true;
  return inWindow && (!op.flag || sim.flag(op.flag));
}

export function createSimulator(options: SimulatorOptions = {}): Sim {
  const resolved = resolveOptions(options);
  const clock = createClock(options.clock);
  const route = createRouter(operations());
  const faults = new Set(resolved.faults);
  // Settings change at run time (control API); reset() goes back to these start values.
  const startSettings = structuredClone(resolved.settings);
  let store: Store = createStore();
  let moduleState = new Map<string, unknown>();
  const evictor = createEvictor(() => store);

  // Release windows are fixed per simulator: each window object (operation, rule) is judged once.
  const windows = new WeakMap<object, boolean>();

  /** A handler's answer; a thrown (or rejected) HttpError becomes its response, anything else propagates (500). */
  const respond = (error: unknown): Answer => {
    if (error instanceof HttpError) return error.toResponse(sim);
    throw error;
  };
  const run = (handler: Handler, ctx: Ctx): Answer | Promise<Answer> => {
    try {
      const answer = handler(ctx);
      return answer instanceof Promise ? answer.catch(respond) : answer;
    } catch (error) {
      return respond(error);
    }
  };

  /** A bug of ours, never the client's fault: say so without echoing request data. */
  const internalError = (error: unknown): Answer => {
    process.stderr.write(`simulator: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return json(500, { message: '500 Internal Server Error' });
  };

  // Synchronous unless the handler is: most answers reach the adapter without a microtask hop.
  const dispatch = (request: SimRequest): Answer | Promise<Answer> => {
    // The one parse of the request's URL, shared with the middlewares: handlers only read it.
    const url = requestUrl(request);
    const match = route(request.method, url.pathname);
    if (match.kind === 'not-found' || (match.kind === 'found' && !available(sim, match.op))) {
      return json(404, { error: '404 Not Found' });
    }
    if (match.kind === 'method-not-allowed') {
      return json(405, { error: '405 Method Not Allowed' }, { allow: match.allow.join(', ') });
    }
    const handler = handlers[match.op.operationId];
    if (!handler) return json(501, { message: `${match.op.operationId} is not implemented by the simulator` });
    const ctx = new RequestCtx(sim, request, url, match.op, match.params);
    if (match.op.tags.includes('simulator')) {
      return controlRefusal(ctx).then((refused) => (refused ? refused.toResponse(sim) : run(handler, ctx)));
    }
    if (isPageForm(match.op)) {
      const refused = formPostRefusal(ctx);
      if (refused) return refused;
    }
    // The one place thrown answers become responses, inside the middlewares (CORS still applies).
    return run(handler, ctx);
  };

  const sim: Sim = {
    options: resolved,
    clock,
    get store() {
      return store;
    },
    fault: (name) => faults.has(name),
    flag: (name) => resolved.flags[name] ?? false,
    inForce: (window) => {
      let known = windows.get(window);
      if (known === undefined) windows.set(window, (known = inRelease(window, resolved.release)));
      return known;
    },
    state<T>(key: string, init: () => T): T {
      if (!moduleState.has(key)) moduleState.set(key, init());
      return moduleState.get(key) as T;
    },
    bodyLimit(method, pathname, authorization) {
      const match = route(method, pathname);
      const git =
        match.kind === 'found' && match.op.tags.includes('git') && gitBodyWelcome(sim, match.params, authorization);
      return git ? limits().gitRequestBodyMaxBytes : limits().requestBodyMaxBytes;
    },
    tooLarge(request) {
      const { pathname } = requestUrl(request);
      // LIM-REQUEST-BODY-SIZE: 413 in the error family of the path.
      const limit = sim.bodyLimit(request.method, pathname, request.headers.get('authorization'));
      const message = `413 Request Entity Too Large: the body is over ${limit} bytes`;
      const reply = errorFor(pathname, 413, message).toResponse(sim);
      // The rest of the body is not read: the client must open a new connection.
      reply.headers.set('connection', 'close');
      return reply;
    },
    reply(request) {
      // Adapters that do not stream (msw, the embedded target) still refuse a declared oversized body here.
      const declared = Number(request.headers.get('content-length'));
      const authorization = request.headers.get('authorization');
      const tooLarge = declared > sim.bodyLimit(request.method, requestUrl(request).pathname, authorization);
      return Promise.resolve(tooLarge ? sim.tooLarge(request) : sim.answer(request));
    },
    async handle(request) {
      const answer = await sim.reply(request);
      const head = request.method === 'HEAD';
      if (!(answer instanceof Reply)) return head ? new Response(null, answer) : answer;
      try {
        return answer.toResponse(!head);
      } catch (error) {
        // Fetch refuses a header value the handler built (a bug of ours, as in answer()).
        process.stderr.write(`simulator: internal error: ${(error as Error).stack ?? String(error)}\n`);
        return json(500, { message: '500 Internal Server Error' }).toResponse();
      }
    },
    answer(request) {
      evictor.due(clock.nowSeconds());
      const chain = (i: number): Answer | Promise<Answer> =>
        i < middlewares.length ? middlewares[i](request, sim, () => chain(i + 1)) : dispatch(request);
      try {
        const answer = chain(0);
        return answer instanceof Promise ? answer.catch(internalError) : answer;
      } catch (error) {
        return internalError(error);
      }
    },
    reset() {
      store = createStore();
      moduleState = new Map();
      resolved.settings = structuredClone(startSettings);
      clock.reset();
      evictor.reset();
      seedAccounts(sim);
      void releaseRepositories(sim).catch(() => {}); // the process's exit removes what stays
    },
    close: () => releaseRepositories(sim),
  };
  seedAccounts(sim);
  return sim;
}
