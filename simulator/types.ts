import type { Clock } from './clock.js';
import type { Store } from './store.js';
import type { FaultName, OperationId, OperationInfo, Offering } from '../spec/index.js';
import type { Answer, Reply } from './http.js';

/**
 * What the simulator reads of a request: the part of the Fetch Request it uses. A Fetch Request
 * is one (sim.handle, msw); the Node adapter passes a lighter one built from IncomingMessage.
 */
export interface SimRequest {
  readonly method: string;
  /** Absolute URL, path exactly as sent. */
  readonly url: string;
  /** The URL already parsed, when the adapter had to parse it anyway (requestUrl reads it). */
  readonly parsedUrl?: URL;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
  text(): Promise<string>;
  /** The body as text at once, where the adapter already holds all of it (no promise to wait for). */
  textNow?(): string;
  arrayBuffer(): Promise<ArrayBuffer>;
  formData(): Promise<FormData>;
}

/** Instance settings an administrator can change (defaults live in spec/profiles.yaml). */
export interface InstanceSettings {
  /** Development mode accepts plain-HTTP redirect URIs; off (production) they must use HTTPS. */
  developmentMode: boolean;
  /** "Allow password authentication for Git over HTTP(S)"; the password grant needs it. */
  gitPasswordAuth: boolean;
  /** Password grant accepted only with client credentials. */
  passwordGrantClientCredentialsOnly: boolean;
  /** Largest offset ((page-1)*per_page) offset pagination serves. */
  maxOffset: number;
  /** Longest request target (path + query) in bytes before 414. */
  maxUrlLength: number;
  /** Requests per period per client before 429; null = rate limiting off. */
  rateLimit: { requests: number; periodSeconds: number } | null;
  /** The deprecated runner registration endpoints answer 410 Gone (the announced future major). */
  runnerRegistrationGone: boolean;
  /** The deprecated reset_registration_token endpoints answer 410 Gone (their own future release). */
  runnerResetTokenGone: boolean;
}

export interface SimulatorOptions {
  release?: string;
  offering?: Offering;
  flags?: Record<string, boolean>;
  settings?: Partial<InstanceSettings>;
  /** Names of spec/faults.yaml (checked when the simulator starts: they come from users). */
  faults?: readonly string[];
  /** Shorthand for settings.developmentMode (plain-HTTP redirect URIs accepted). */
  devMode?: boolean;
  /** Seed of the generated REST data. */
  seed?: number;
  /** Size knob of the generated REST data. */
  seedSize?: number;
  /** Fixed issuer; otherwise the request's origin. */
  issuer?: string;
  /**
   * Serve the /-/simulator/ control API (default). Off, the simulator looks like a live
   * deployment: the harness must detect that and neither approve, move time nor create data.
   */
  control?: boolean;
  /** Trust X-Forwarded-Proto (behind a TLS-terminating proxy): the session cookie gets Secure. */
  trustProxy?: boolean;
  /**
   * Host header values (`name` or `name:port`) the control API answers (AUTH-CONTROL-API-LOCAL),
   * and the only ones whose requests can be own-origin (origin.ts hostAllowed).
   * Unset: any (in-process adapters have no Host to forge); serve() sets them (controlHostsFor).
   */
  controlHosts?: string[];
  /** Clock: frozen, or starting at a given epoch-ms. */
  clock?: { start?: number; frozen?: boolean };
  /** Bytes pushes may leave in its repositories (LIM-GIT-PUSHES-BOUNDED): lower only, the limit is the most. */
  gitPushedMaxBytes?: number;
}

export interface ResolvedOptions {
  release: string;
  offering: Offering;
  flags: Record<string, boolean>;
  settings: InstanceSettings;
  faults: FaultName[];
  seed: number;
  seedSize: number;
  issuer?: string;
  control: boolean;
  trustProxy: boolean;
  controlHosts?: string[];
  /** A bound lower than limits.gitPushedMaxBytes (tests); unset, the limit. */
  gitPushedMaxBytes?: number;
}

export interface Sim {
  readonly options: ResolvedOptions;
  readonly clock: Clock;
  readonly store: Store;
  /** Is this named fault switched on? */
  fault(name: FaultName): boolean;
  /** Is a feature flag on (default from spec/profiles.yaml)? */
  flag(name: string): boolean;
  /** Is something with this release window in force on the simulated release? */
  inForce(window: { since?: string; until?: string }): boolean;
  /** Module-owned state, created on first use and dropped by reset(). */
  state<T>(key: string, init: () => T): T;
  /**
   * Largest body this method and path accept (LIM-REQUEST-BODY-SIZE), for adapters that stream:
   * a Git route's larger limit only with the Authorization a Git client would be served with.
   */
  bodyLimit(method: string, pathname: string, authorization?: string | null): number;
  /** The 413 answer of a body over bodyLimit, in the error shape of the path. */
  tooLarge(request: SimRequest): Reply;
  /** The Fetch entry (msw, supertest through the Node adapter's callers, in-process tests). */
  handle(request: Request): Promise<Response>;
  /** handle() before the Fetch Response is made: a declared oversized body refused, else answer(). */
  reply(request: SimRequest): Promise<Answer>;
  /**
   * The entry every adapter ends in: the answer before any Fetch Response is made of it; at once
   * where no middleware or handler waits (the Node adapter then writes it in the same tick).
   */
  answer(request: SimRequest): Answer | Promise<Answer>;
  /** Back to the state right after start (seeded accounts and data, clock offset 0; what pushes stored goes). */
  reset(): void;
  /** Remove what the simulator keeps on disk (its repositories); a later Git request starts afresh. */
  close(): Promise<void>;
}

export type ParsedBody =
  | { kind: 'none' }
  /** `text`: the body as sent, when it came form-encoded (OAuth parameters are read from it directly). */
  | { kind: 'form'; form: URLSearchParams; text?: string }
  | { kind: 'json'; json: unknown }
  | { kind: 'invalid'; reason: string };

export interface Ctx {
  sim: Sim;
  request: SimRequest;
  url: URL;
  method: string;
  /** Path exactly as sent, percent-encoding intact (`group%2Fproject` stays one segment). */
  rawPath: string;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** Query string parameters (`+` already read as a space, `%2B` as a plus). */
  query: URLSearchParams;
  op: OperationInfo;
  /** Request body parsed once by content type: form, JSON, none or invalid. */
  body(): Promise<ParsedBody>;
  /**
   * The same, now, where nothing needs waiting for (see parseBodyNow); undefined otherwise. The
   * hot OAuth endpoints answer synchronously with it: a promise per step costs microtask hops.
   */
  bodyNow?(): ParsedBody | undefined;
  /** The absolute origin the client used, for Link and Location URLs. */
  origin: string;
}

export type Handler = (ctx: Ctx) => Answer | Promise<Answer>;

/** Handlers by the operationId of spec/openapi.yaml they serve. */
export type Handlers = Partial<Record<OperationId, Handler>>;

/**
 * Runs before routing; may answer itself (414, 429, CORS preflight) or call next(). An answer may
 * come synchronously: a pass-through returns next()'s own result (a promise per middleware costs
 * microtask hops on every request).
 */
export type Middleware = (
  request: SimRequest,
  sim: Sim,
  next: () => Answer | Promise<Answer>,
) => Answer | Promise<Answer>;
