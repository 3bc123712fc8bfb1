/**
 * The contract between checks, the runner and targets. Checks are small plain values
 * (Schemathesis-style): an id, the rule ids they prove, what they need, and an async run(t).
 * The runner (CLI `run`) and the vitest files under suites/ both execute the same checks.
 */
import type * as fc from 'fast-check';
import type { Offering, RuleId } from '../spec/index.js';
import type { Exchange } from './report/model.js';
import type { AppConfig, AppRole, DriverKind, TargetConfig } from '../spec/target-config.js';

/** Every suite, in the order runs and reports list them; SuiteName derives from it. */
export const SUITE_NAMES = [
  'grants',
  'device',
  'tokens',
  'oidc',
  'cors',
  'encoding',
  'pagination',
  'scopes',
  'versioning',
] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

/** What a target can do; detected at start, never assumed. */
/** The endpoints every suite reaches for, asked at start-up (runner/capabilities.ts CORE_ENDPOINTS). */
export type CoreCapability = 'tokenEndpoint' | 'revocation' | 'deviceEndpoint' | 'keys' | 'authorizeEndpoint';
/** Every endpoint the start-up asks whether it is there, each with a reporter (runner/capabilities.ts EndpointPremise). */
export type EndpointCapability = CoreCapability | 'restApi' | 'tokenInfo' | 'userinfo';

export interface Capabilities {
  /** The `/-/simulator/` control API answers (approve/deny device codes, create data). */
  control: boolean;
  /** Time can be moved forward (control API clock). */
  clock: boolean;
  /** Instance settings can be read and changed at run time (control API settings). */
  settings: boolean;
  /** Device authorization grant available (release >= 17.1 and flag on and endpoint answers). */
  device: boolean;
  /** Password grant available at this release and offering and instance setting. */
  passwordGrant: boolean;
  /** A personal access token is configured. */
  pat: boolean;
  /** The harness may create its own data (projects, applications) on the target. */
  writable: boolean;
  /** OpenID Connect: an application with the openid scope is configured. */
  oidc: boolean;
  /** The REST API answers under /api/v4 (GET /api/v4/user is not a 404). */
  restApi: boolean;
  /** GET /oauth/token/info is served (not a 404). */
  tokenInfo: boolean;
  /** GET /oauth/userinfo is served (not a 404). */
  userinfo: boolean;
  /** POST /oauth/token is served (an empty request is not answered 404, 405 or a redirect). */
  tokenEndpoint: boolean;
  /** POST /oauth/revoke is served (an empty request is not answered 404, 405 or a redirect). */
  revocation: boolean;
  /** POST /oauth/authorize_device is served (an empty request is not answered 404, 405 or a redirect). */
  deviceEndpoint: boolean;
  /** GET /oauth/discovery/keys is served (not a 404). */
  keys: boolean;
  /** GET /oauth/authorize is served (a request without parameters is not answered 404). */
  authorizeEndpoint: boolean;
  /**
   * The status each endpoint found absent answered the start-up's request (404, 405, a redirect):
   * its reporter judges that answer (runner/capabilities.ts EndpointPremise).
   */
  absentAnswers?: Partial<Record<EndpointCapability, number>>;
  /**
   * The status (401, 403) each endpoint answered the start-up's request without credentials, when
   * that was a refusal, not an answer: there or not, a check's request with credentials tells
   * (runner/session.ts, a gateway that asks for sign-in before routing).
   */
  unsureAnswers?: Partial<Record<EndpointCapability, number>>;
  /** Discovery advertises an RFC 7662 introspection endpoint on the target's origins (trustedOrigins too). */
  introspection: boolean;
  /**
   * Its path (and query) on the target's origin, or its URL on an origin the config trusts, when
   * `introspection`: credentials go only to the target's origins.
   */
  introspectionPath?: string;
  /** Why an introspection endpoint discovery advertises is never asked (on an origin the config does not trust). */
  introspectionAway?: string;
  /**
   * The password grant, declared available in the config, was refused at start-up with and
   * without client authentication: its status and error code (no secret). The premise of the
   * password checks, reported once (PASSWORD_PREMISE).
   */
  passwordRefused?: string;
  /**
   * The password grant asked with HTTP Basic client credentials at start-up was refused with
   * invalid_client (its status and code), and taken without client authentication: the provider
   * refuses HTTP Basic, not the grant. AUTH-CLIENT-BASIC is judged on it once
   * (grants.password-response); the other password checks authenticate no client.
   */
  clientBasicRefused?: string;
  /**
   * The applications whose client_secret in the form body the token endpoint refused at start-up
   * with invalid_client while it took the same credentials by HTTP Basic (Okta's
   * client_secret_basic clients): what it answered. AUTH-CLIENT-BODY is judged on it once
   * (grants.token-response-fields); every other request authenticating them goes by Basic (clientAuth).
   */
  clientBodyRefused?: Partial<Record<AppRole, string>>;
  /**
   * The device grant, declared available in the config, was refused to the configured application
   * at start-up (a 4xx other than absence): its status and error code. The premise of the device
   * checks, reported once (DEVICE_PREMISE).
   */
  deviceRefused?: string;
  /** GET /api/v4/user answered this gateway error at start-up (502, 503, 504): `restApi` is false. */
  restApiDown?: number;
  /** GET /api/v4/user refused the configured personal access token (401, 403) at start-up: `restApi` is false. */
  restPatRefused?: number;
  /** The personal access token is read as a Bearer token only (refused in PRIVATE-TOKEN): REST checks send it so. */
  patAsBearer?: boolean;
}
/** What a check may need: the yes-or-no capabilities. */
export type Capability = Exclude<
  keyof Capabilities,
  | 'introspectionPath'
  | 'introspectionAway'
  | 'passwordRefused'
  | 'clientBasicRefused'
  | 'clientBodyRefused'
  | 'deviceRefused'
  | 'restApiDown'
  | 'restPatRefused'
  | 'patAsBearer'
  | 'absentAnswers'
  | 'unsureAnswers'
>;

export type { AppConfig, AppRole, DriverConfig, DriverKind, Fixtures, TargetConfig } from '../spec/target-config.js';

export interface HttpRequest {
  method?: string;
  /** Raw path, sent exactly as written (percent-encoding untouched); may carry a query string. */
  path: string;
  /** Extra query parameters, appended in order (arrays repeat the name). */
  query?: Record<string, string | number | boolean | Array<string | number>>;
  /** Sent as given, over what the harness would send; undefined leaves that header out (Accept included). */
  headers?: Record<string, string | undefined>;
  /** application/x-www-form-urlencoded body. */
  form?: Record<string, string | undefined> | URLSearchParams;
  /** application/json body. */
  json?: unknown;
  /** Authorization: Bearer <token> */
  bearer?: string;
  /** Authorization: Basic base64(user:password), as RFC 7617 has it (Git over HTTPS: a token as the password). */
  basic?: { user: string; password: string };
  /** Authorization: Basic with an OAuth client's id and secret, each form-encoded first (RFC 6749 §2.3.1). */
  clientBasic?: { user: string; password: string };
}

export interface FollowOptions extends Omit<HttpRequest, 'path'> {
  /** What the URL is (`rel=next of page 2`) and the rules it breaks if it leaves the target's origin. */
  leaving?: { what: string; rules?: RuleId[] };
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body; fails the check with a clear message if the body is not JSON. */
  json<T = unknown>(): T;
  /** Absolute URL that was requested. */
  url: string;
  /**
   * The source's path the request was sent for (`/oauth/token`), wherever discovery routed it
   * (Http.urlOf): what an answer is judged as, even at a provider's own path. Absent for a URL
   * the target handed out (follow).
   */
  endpoint?: string;
  /**
   * The grant_type a form-encoded request asked for: where RFC 8628 §3.5's codes are token error
   * codes (a device grant poll) and where they are not. Absent for any other request.
   */
  grant?: string;
}

export interface Http {
  readonly baseUrl: string;
  /**
   * The absolute URL a request for a path of the source (`/oauth/authorize?…`) goes to: under the
   * base URL, or where discovery puts that endpoint on an origin the config trusts.
   */
  urlOf(path: string): string;
  send(request: HttpRequest): Promise<HttpResponse>;
  get(path: string, options?: Omit<HttpRequest, 'path' | 'method'>): Promise<HttpResponse>;
  post(path: string, options?: Omit<HttpRequest, 'path' | 'method'>): Promise<HttpResponse>;
  /**
   * Request an absolute URL handed out by the server (Link, Location) exactly as given, when it
   * stays on the target's origin; else nothing is sent and the check fails on `leaving.rules`
   * (errored when none is named: the harness cannot go on without leaving).
   */
  follow(absoluteUrl: string, options?: FollowOptions): Promise<HttpResponse>;
  /** Why the harness may send nothing to `url` (another origin, https to http), or undefined. */
  leaves(url: string): string | undefined;
  /** Record traffic that did not go through send() (a browser's page loads): it is evidence too. */
  record(exchange: Exchange): void;
}

/** What came of playing the user on an authorize URL (see Driver.authorize). */
export interface AuthorizeOutcome {
  redirect?: URL;
  response: HttpResponse;
  decided?: boolean;
  /**
   * The driver pressed a control or followed a link besides the sign-in's own (a step, terms
   * accepted, an account picked, an interstitial's link): a grant that follows may be the harness's.
   */
  stepped?: boolean;
  /** An approve or deny control was pressed in this run, this visit or an earlier one: the provider shows consents. */
  consentSeen?: boolean;
}

/** What a check says of the authorization request it hands the driver (Driver.authorize). */
export interface AuthorizeOptions {
  /**
   * The request must be refused without authenticating (RFC 6749 §3.1.2.4, §4.1.2.1: no client_id
   * or redirect_uri, an unknown client, an unregistered redirect_uri): what the provider answers is
   * that check's to judge alone, never taken for the run's sign-in going on elsewhere (which skips
   * every later sign-in). A redirect off the provider that may be that sign-in decides nothing for
   * that request (NoVerdict; sign-in.ts, goingOnElsewhere). Not for requests a provider may lawfully
   * meet with a sign-in first (a scope or response type it refuses, a PKCE method, no scope): those
   * are `refusable`.
   */
  malformed?: boolean;
  /**
   * A request a provider may lawfully refuse, at once or after a sign-in (a scope or response type
   * it refuses, a PKCE method, no scope). A page a script draws answering it directly may be that
   * refusal (an SPA's error route): the check's own trouble, never said once for the run as the way
   * in (the form driver, signInScripted), which a plain authorization's answer is.
   */
  refusable?: boolean;
}

/** Who plays the user. */
export interface Driver {
  readonly kind: DriverKind;
  /**
   * Open an /oauth/authorize URL as the configured user would: sign in if asked, then approve or
   * deny the consent form. Returns the URL the provider redirected to (redirect_uri with code/state
   * or error), or the error page response when the provider refused to redirect. `decided` says
   * whether the driver really pressed the approve or deny control: false when the provider asked
   * nothing (a remembered consent) or offered no such control, so a check can tell the provider's
   * answer from a decision nobody made (undefined: the driver cannot know, as a person deciding).
   */
  authorize(authorizeUrl: string, decision: 'approve' | 'deny', options?: AuthorizeOptions): Promise<AuthorizeOutcome>;
  /**
   * Approve or deny a device code on the verification page: `page`, the verification_uri the
   * provider answered, when the harness may visit it, else the service's GET /oauth/device.
   */
  approveDevice(userCode: string, page?: string): Promise<void>;
  denyDevice(userCode: string, page?: string): Promise<void>;
  /** Move time forward; only when caps.clock and `movesClock`. */
  advanceClock(seconds: number): Promise<void>;
  /**
   * Can advanceClock move the target's clock: the simulator driver, the browser driver where the
   * control API answers; not the form and manual drivers, whatever the target offers.
   */
  readonly movesClock?: boolean;
  /** Release what the driver holds (the browser driver's Chromium); the session calls it at the end. */
  close?(): Promise<void>;
  /**
   * The running check's time, set by the session as each check starts (the run's between checks):
   * a real-time wait the driver makes for the target (a 429 page) counts against it, as the HTTP
   * target's do, and is given up when longer than `leftMs()`. A visit belongs to the time it began
   * under: when another is set, its check has ended, and the visit is ended with it.
   */
  timedBy?(time: CheckTime | undefined): void;
}

/** What is left of the running check's time limit (and the run's --deadline), in ms. */
export interface CheckTime {
  leftMs(): number;
  /** Aborted when the run is interrupted (Ctrl-C, SessionOptions.stop): a driver's real-time wait ends at once. */
  stop?: AbortSignal;
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  created_at?: number;
  scope?: string;
  id_token?: string;
  [key: string]: unknown;
}

/** Flows run through the real endpoints; every token minted here is revoked when the run ends. */
/** How a client authenticates: its secret in the form body, by HTTP Basic, or not at all. */
export type ClientAuthMethod = 'body' | 'basic' | 'none';

/** A client's credentials placed: fields for the form (or JSON) body, or an HTTP Basic credential. */
export interface ClientCredentials {
  fields: Record<string, string | undefined>;
  clientBasic?: HttpRequest['clientBasic'];
}

/** How a request authenticates its application: `auth` a way (else the one found at start-up), `secret` another secret (null: none). */
export interface ClientAuthOptions {
  auth?: ClientAuthMethod;
  secret?: string | null;
}

export interface OAuthFlows {
  /** The configured application of this role; skips the check when the target config has none. */
  app(role: AppRole): AppConfig;
  /** PKCE verifier/challenge helper (S256). */
  pkce(verifier?: string): { verifier: string; challenge: string };
  /** Build an /oauth/authorize URL for an application. */
  authorizeUrl(app: AppRole, params?: Record<string, string | undefined>): string;
  /** Full authorization code flow up to the code (consent approved through the driver). */
  code(
    app: AppRole,
    options?: { scope?: string; state?: string; pkce?: boolean; verifier?: string; nonce?: string },
  ): Promise<{
    code: string;
    state: string | null;
    verifier?: string;
    redirectUri: string;
  }>;
  /**
   * The credentials of application `app` for a request that is not about how clients
   * authenticate: by HTTP Basic where the start-up found its secret refused in the body
   * (Capabilities.clientBodyRefused), else in the body, unless `auth` names a way.
   */
  clientAuth(app: AppRole, options?: ClientAuthOptions): ClientCredentials;
  /** POST `path` with the given form, the client's credentials added as clientAuth places them. */
  clientRequest(
    path: string,
    form: Record<string, string | undefined>,
    options?: ClientAuthOptions & { app?: AppRole; headers?: HttpRequest['headers'] },
  ): Promise<HttpResponse>;
  /** POST /oauth/token with the given form (clientRequest; client auth added per app unless `auth: 'none'`). */
  tokenRequest(
    form: Record<string, string | undefined>,
    options?: { app?: AppRole; auth?: ClientAuthMethod; headers?: HttpRequest['headers'] },
  ): Promise<HttpResponse>;
  /** Code flow to a token response (tracked for revocation). */
  token(app: AppRole, options?: { scope?: string; pkce?: boolean; nonce?: string }): Promise<TokenResponse>;
  /** Password grant to a token response (tracked). */
  password(options?: { scope?: string; auth?: ClientAuthMethod }): Promise<HttpResponse>;
  /** Remember a token the check minted by hand so the run revokes it at the end. */
  track(token: string | undefined, app?: AppRole): void;
  /** A secret the check read where the redactor cannot tell it is one (a client secret on a page): never shown. */
  conceal(secret: string | undefined): void;
  /** POST /oauth/revoke as application `app` (default confidential), authenticated as clientAuth places it. */
  revoke(token: string, app?: AppRole): Promise<HttpResponse>;
}

/**
 * Structured context of a failure. `rules`, when given, names the rules this failure breaks
 * (usually some of the check's rules; a set-up step may name another): their levels decide failed
 * or warned, and only they are marked broken in the report. A check proving several rules should
 * say which one a failure breaks. An assertion that holds proves the rules it names; one naming
 * none proves the check's rule only when the check has one, so a check of several rules names
 * them. An id that is no rule does not compile, and stops the run if cast.
 */
export type FailureDetails = Record<string, unknown> & { rules?: RuleId[] };

export interface CheckContext {
  readonly config: TargetConfig;
  readonly release: string;
  readonly offering: Offering;
  readonly caps: Capabilities;
  readonly http: Http;
  readonly driver: Driver;
  readonly oauth: OAuthFlows;
  readonly seed: number;
  readonly numRuns: number;
  /** Real-time waits allowed (`--slow`). */
  readonly slow: boolean;
  /**
   * The check is about to wait `ms` in real time for what the target named (`--slow`: an interval,
   * a code's lifetime): its time limit moves on by as much, up to REAL_WAIT_GRANT_MS a wait; the
   * run's `--deadline` does not move. Absent where no limit runs (a check outside a session).
   */
  waitingFor?(ms: number): void;
  /** What is left before the run's `--deadline`, in ms: a real-time wait that would end past it is not begun. Absent without one. */
  deadlineLeftMs?(): number;
  /**
   * fc.assert with the run's seed and numRuns; on failure the shrunk counterexample is recorded
   * in the report. Use for every property.
   */
  property<Ts extends [unknown, ...unknown[]]>(
    ...args: [
      ...arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
      predicate: (...values: Ts) => Promise<boolean | void>,
    ]
  ): Promise<void>;
  /** Fail this check with a human sentence and structured context. */
  fail(message: string, details?: FailureDetails): never;
  /** Assert: fail(message) unless condition. */
  expect(condition: unknown, message: string, details?: FailureDetails): asserts condition;
  /**
   * A soft assertion: a false condition is recorded as a failure of the rules in `details.rules`
   * and the check goes on, so one broken detail does not hide what the assertions after it prove.
   * Use it for assertions nothing later depends on. Returns the condition.
   */
  soft(condition: unknown, message: string, details?: FailureDetails): boolean;
  /**
   * The harness cannot do its part (the driver cannot play the page, the provider skipped the step
   * this check needs, an oracle it leans on is missing): the check is `errored`, not failed.
   */
  harness(message: string): never;
  /** Skip this check with the reason (missing capability, release, fixture). */
  skip(reason: string): never;
  /**
   * Say what the verdict does not (a request of the check that decided nothing, and why): the
   * check's message carries it, whatever the status, bounded. Judges nothing.
   */
  note(message: string): void;
  /** Is the rule in force for this run's release, offering and flags? */
  inForce(ruleId: RuleId): boolean;
  /**
   * "(X reports it on R)", for a skip whose premise another check reports: where this run leaves X
   * out, it says so and how to run it (shared/reported-by.ts `reportedBy` reads it, with a default).
   */
  reportedBy?(check: string, rule?: string): string;
}

export interface Check {
  /** Stable id, `<suite>.<kebab-name>`; `run --check ID` reproduces just this one. */
  id: string;
  suite: SuiteName;
  title: string;
  /** Rule ids from spec/rules.yaml this check proves. */
  rules: RuleId[];
  needs?: Capability[];
  /** Waits in real time on a live target; runs only with --slow there. */
  slow?: boolean;
  run(t: CheckContext): Promise<void>;
}
