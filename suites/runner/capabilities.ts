/**
 * What the target can do, found out by asking it. A declaration in the target config counts too
 * (so a simulator whose endpoint is broken by a fault gets its checks run and failed, not skipped),
 * but nothing is assumed from the release alone.
 */
import type { RuleId } from '../../spec/index.js';
import type {
  AppRole,
  Capabilities,
  Capability,
  CoreCapability,
  Driver,
  EndpointCapability,
  Http,
  HttpResponse,
  TargetConfig,
} from '../types.js';
import { CONTROL_PREFIX } from '../drivers/simulator.js';
import {
  AUTHORIZE_DEVICE_PATH,
  AUTHORIZE_PATH,
  CURRENT_USER_PATH,
  KEYS_PATH,
  readDiscovery,
  REVOKE_PATH,
  TOKEN_INFO_PATH,
  TOKEN_PATH,
  USERINFO_PATH,
  quotableError,
  webPage,
} from '../shared/oauth.js';
import { jsonObject } from '../shared/json.js';
import { GATEWAY_ERRORS } from '../shared/rest-tokens.js';
import { RateLimited } from './errors.js';
import type { TrackedFlows } from './oauth.js';

export const DEVICE_FLAG = 'device_authorization_grant';
/**
 * An answer that shows the feature exists: success, or a server error (a broken feature is
 * there to be failed, not skipped). A refusal (4xx) means it is not offered.
 */
const present = (status: number) => status === 200 || status >= 500;
export const PASSWORD_FEATURE = 'password_grant';

/**
 * Who reports a password grant declared available but refused to the configured user (Okta's and
 * Keycloak's unauthorized_client for a client not allowed it), and on which rule: the other
 * password checks rest on that grant working and are skipped, naming it (runner/session.ts).
 */
export const PASSWORD_PREMISE = { reporter: 'grants.password-response', rule: 'GRANT-PASSWORD-PARAMS' } as const;

/**
 * Who reports a device grant declared available but refused to the configured application
 * (Keycloak's and Okta's unauthorized_client for a client the grant is not enabled for), and on
 * which rule: the other device checks rest on a device authorization and are skipped, naming it.
 */
export const DEVICE_PREMISE = { reporter: 'device.authorization-response', rule: 'DEV-AVAILABILITY' } as const;

/**
 * The grants declared available yet refused at start-up, each one cause: its reporter judges it on
 * its rule, every other check that needs the grant is skipped with `said` (runner/session.ts).
 */
export const REFUSED_PREMISES: ReadonlyArray<{
  need: Capability;
  reporter: string;
  rule: RuleId;
  refused: (caps: Capabilities) => string | undefined;
  said: (refused: string) => string;
}> = [
  {
    ...PASSWORD_PREMISE,
    need: 'passwordGrant',
    refused: (caps) => caps.passwordRefused,
    said: (refused) =>
      `the password grant, declared available (features.${PASSWORD_FEATURE}), was refused to the configured user at start-up with and without client authentication (${refused})`,
  },
  {
    ...DEVICE_PREMISE,
    need: 'device',
    refused: (caps) => caps.deviceRefused,
    said: (refused) =>
      `the device authorization grant, declared available (features.${DEVICE_FLAG}), was refused to the configured application at start-up (${refused})`,
  },
];

/** Can this run move the target's clock: the target offers control and the driver in use moves it (Driver.movesClock). */
export function clockMoves(run: { caps: Pick<Capabilities, 'clock'>; driver: Pick<Driver, 'movesClock'> }): boolean {
  return run.caps.clock && run.driver.movesClock === true;
}

/** Why a target that offers its clock still has none for this run. */
export const driverCannotMoveClock = (kind: string) => `the ${kind} driver cannot move the target's clock`;

async function answers(
  probe: () => Promise<{ status: number; text: string }>,
  ok: (status: number, text: string) => boolean,
): Promise<boolean> {
  try {
    const r = await probe();
    return ok(r.status, r.text);
  } catch {
    return false;
  }
}

/**
 * A refusal (4xx) as `status error` (the error code only, never a secret), else undefined; with
 * `absentTo`, an answer that says the endpoint is absent to that method (absentBy) is none.
 */
async function refusal(probe: () => Promise<HttpResponse>, absentTo?: 'POST'): Promise<string | undefined> {
  let answer: HttpResponse;
  try {
    answer = await probe();
  } catch {
    return undefined;
  }
  if (answer.status < 400 || answer.status >= 500 || (absentTo && absentBy(answer, absentTo))) return undefined;
  const error = quotableError(jsonObject(answer)?.error);
  return error ? `${answer.status} ${error}` : String(answer.status);
}

const isJsonObject = (text: string) => {
  try {
    const v: unknown = JSON.parse(text);
    return !!v && typeof v === 'object';
  } catch {
    return false;
  }
};

/** What absentBy reads of an answer: its status, and a gateway's own refusal in its headers and body. */
export type Answer = Pick<HttpResponse, 'status'> & Partial<Pick<HttpResponse, 'headers' | 'text'>>;

/**
 * The answer to `path` (a GET, or a POST of an empty form), or undefined when nothing answered. A
 * refusal given up after its retries counts by its status when that is a gateway error (a 503
 * whose Retry-After is longer than the harness waits: a maintenance window), else as nothing (a
 * rate limit).
 */
async function answerOf(
  http: Http,
  path: string,
  method: 'GET' | 'POST' = 'GET',
  headers?: Record<string, string>,
): Promise<Answer | undefined> {
  try {
    return method === 'GET' ? await http.get(path, { headers }) : await http.post(path, { form: {} });
  } catch (error) {
    const status = error instanceof RateLimited ? error.status : undefined;
    return status !== undefined && GATEWAY_ERRORS.has(status) ? { status } : undefined;
  }
}

/** A web page (webPage), where the answer is whole (not a status alone). */
const pageIn = (answer: Answer) =>
  answer.headers !== undefined && answer.text !== undefined && webPage(answer as HttpResponse);

/**
 * Is a family of endpoints there at all? Asked once per run, without credentials: a 404 means
 * absent (an OAuth-only server has no /api/v4); any other answer, even a server error or no
 * answer, means there, so a broken endpoint is failed by its checks rather than skipped. The
 * checks that depend on an absent family are skipped; the one whose rule says it exists fails.
 * 405 means the method the harness uses is not served there (a userinfo endpoint routed for POST
 * only): absent too. An endpoint only POSTed to (token, revocation, device authorization) is asked
 * with an empty form, which one that is there refuses (400, 401); a redirect means absent: the
 * endpoint is elsewhere, and the harness follows none (its POSTs carry credentials, see
 * target/origin.ts). `absent`: the status that says it is absent, the start-up's answer its
 * reporter judges. `unsure`: a 401 or 403, the answer of a gateway that asks for sign-in before
 * routing (Spring Security, oauth2-proxy, Kong with a global auth plugin) as much as of the
 * endpoint: there or not, the first check's request with credentials tells (runner/session.ts).
 * At an endpoint that answers JSON only, a web page is absent (a web app's catch-all) and a GET
 * redirect unsure (a trailing-slash redirect, or a gateway sending an anonymous caller to sign in).
 */
async function probe(
  http: Http,
  { path, method, jsonOnly }: Pick<EndpointPremise, 'path' | 'method' | 'jsonOnly'>,
): Promise<{ absent?: number; unsure?: number }> {
  const answer = await answerOf(http, path, method);
  if (answer === undefined) return {};
  const redirect = answer.status >= 300 && answer.status < 400;
  if (jsonOnly && method === 'GET' && redirect) return { unsure: answer.status };
  if (absentBy(answer, method, jsonOnly)) return { absent: answer.status };
  return answer.status === 401 || answer.status === 403 ? { unsure: answer.status } : {};
}

/**
 * AWS API Gateway's answer to a route it does not define, whatever the credentials: 403
 * {"message":"Missing Authentication Token"}, typed in x-amzn-errortype. No OAuth endpoint is
 * behind IAM request signing (the one other cause of that answer): no client could call it.
 */
const apiGatewayNoRoute = (answer: Answer) =>
  answer.status === 403 &&
  (answer.headers?.get('x-amzn-errortype')?.split(':')[0].trim() === 'MissingAuthenticationTokenException' ||
    /^\s*\{\s*"message"\s*:\s*"Missing Authentication Token"\s*\}\s*$/.test(answer.text ?? ''));

/**
 * A GET of an endpoint that answers JSON only (EndpointPremise.jsonOnly) answered by a redirect
 * (`/oauth/userinfo` → `/oauth/userinfo/`: the harness follows none) or by a web page (a web
 * app's catch-all): not that endpoint's answer, so none at the source's path (review 28).
 */
const notJsonEndpoint = (answer: Answer) => (answer.status >= 300 && answer.status < 400) || pageIn(answer);

/**
 * Does `answer`, to `method`, say the endpoint is absent (probe, above)? One reading for start-up
 * and checks; `jsonOnly`, of an endpoint that answers JSON only (notJsonEndpoint).
 */
export const absentBy = (answer: Answer, method: 'GET' | 'POST', jsonOnly = false): boolean =>
  answer.status === 404 ||
  answer.status === 405 ||
  (method === 'POST' && answer.status >= 300 && answer.status < 400) ||
  (method === 'GET' && jsonOnly && notJsonEndpoint(answer)) ||
  apiGatewayNoRoute(answer);

/**
 * An endpoint the start-up asks whether it is there at all (absentAnswer, above). One absent is
 * reported once, by the `reporter` check, on the start-up's answer (its 404 fails `rule`, which
 * says the endpoint answers; runner/session.ts startUpAbsences), and the checks that need it are
 * skipped, naming it.
 */
export interface EndpointPremise {
  capability: EndpointCapability;
  method: 'GET' | 'POST';
  path: string;
  /** What the target lacks, in words. */
  name: string;
  reporter: string;
  rule: RuleId;
  /**
   * Was it asked at start-up without the credentials its checks send (a family a provider may hide
   * from anonymous callers)? Served to its reporter then, no rule is blamed (runner/session.ts).
   */
  anonymous?: (caps: Capabilities) => boolean;
  /** Does it answer JSON only, so that a redirect or a web page there is none of its answers (absentBy)? */
  jsonOnly?: boolean;
}

/**
 * Endpoints that checks of every suite reach for, on their way to what they test: any other check
 * that sends a request there is skipped, saying why (runner/session.ts), instead of failing its
 * own rules on a 404.
 */
export interface CoreEndpoint extends EndpointPremise {
  capability: CoreCapability;
  /** Where its absence is no news: the device endpoint of a target without the device grant. */
  expected?: (found: Capabilities) => boolean;
}
export const CORE_ENDPOINTS: readonly CoreEndpoint[] = [
  {
    capability: 'tokenEndpoint',
    method: 'POST',
    path: TOKEN_PATH,
    name: 'token endpoint',
    reporter: 'grants.token-response-fields',
    rule: 'GRANT-CODE-PARAMS',
  },
  {
    capability: 'revocation',
    method: 'POST',
    path: REVOKE_PATH,
    name: 'revocation endpoint',
    reporter: 'tokens.revoke-access-token',
    rule: 'REV-PARAMS',
  },
  {
    capability: 'deviceEndpoint',
    method: 'POST',
    path: AUTHORIZE_DEVICE_PATH,
    name: 'device authorization endpoint',
    reporter: 'device.authorization-response',
    rule: 'DEV-AVAILABILITY',
    expected: (found) => found.device,
  },
  { capability: 'keys', method: 'GET', path: KEYS_PATH, name: 'key set', reporter: 'oidc.jwks', rule: 'OIDC-JWKS' },
  {
    capability: 'authorizeEndpoint',
    method: 'GET',
    path: AUTHORIZE_PATH,
    name: 'authorization endpoint',
    reporter: 'grants.sign-in-required',
    rule: 'GRANT-CODE-FLOW',
  },
];

/**
 * The endpoint families a check declares it `needs` (skipped on the capability, runner/session.ts
 * gate): absent is a 404 (the REST API, asked without and with the configured token; a gateway
 * error or a refused token is another premise, restStartupTrouble) or also a 405 (the others).
 */
export const NEEDED_ENDPOINTS: readonly EndpointPremise[] = [
  {
    capability: 'restApi',
    method: 'GET',
    path: CURRENT_USER_PATH,
    name: 'REST API',
    reporter: 'versioning.api-prefix',
    rule: 'ENC-API-PREFIX',
    // Asked with the configured personal access token too, where there is one.
    anonymous: (caps) => !caps.pat,
  },
  {
    capability: 'tokenInfo',
    method: 'GET',
    path: TOKEN_INFO_PATH,
    name: 'token information endpoint',
    reporter: 'tokens.info-presentations',
    rule: 'INFO-TOKEN-PRESENTATION',
    anonymous: () => true,
    jsonOnly: true,
  },
  {
    capability: 'userinfo',
    method: 'GET',
    path: USERINFO_PATH,
    name: 'userinfo endpoint',
    reporter: 'oidc.userinfo',
    rule: 'OIDC-USERINFO',
    anonymous: () => true,
    jsonOnly: true,
  },
];

/**
 * The RFC 7662 introspection endpoint discovery advertises: a path on the target's own origin, or
 * its URL on an origin the config trusts; one elsewhere would get the client's credentials: never
 * asked, and why (`away`).
 */
export function introspectionAt(
  http: Http,
  discovery: Record<string, unknown> | undefined,
): { path?: string; away?: string } {
  const advertised = discovery?.introspection_endpoint;
  if (typeof advertised !== 'string' || !URL.canParse(advertised, http.baseUrl)) return {};
  const url = new URL(advertised, http.baseUrl);
  // On the target's origin: under the base URL, its path there (follow puts the base URL before it);
  // elsewhere on that origin, its URL (a base URL with a path prefix must not be put before it twice).
  if (url.origin === new URL(http.baseUrl).origin)
    return { path: url.href.startsWith(`${http.baseUrl}/`) ? url.href.slice(http.baseUrl.length) : url.href };
  const why = http.leaves(url.href);
  return why === undefined
    ? { path: url.href }
    : {
        away: `discovery's introspection_endpoint is ${url.origin}${url.pathname}, which ${why}: nothing was sent there (trustedOrigins lists the provider's other origins)`,
      };
}

export interface DetectInput {
  http: Http;
  /** Did the control API answer (see detectControl)? */
  control: boolean;
  config: TargetConfig;
  oauth: TrackedFlows;
  /** Feature flags of the run (profile defaults in their window, then the config). */
  flags: Record<string, boolean>;
  /** Is a rule window such as the password grant's still open at this release? */
  passwordInForce: boolean;
  /** The discovery document when the caller has read it already (else it is read here). */
  discovery?: Record<string, unknown> | null;
}

/** The simulator's control API answers with its config. */
export function detectControl(http: Http): Promise<boolean> {
  return answers(
    () => http.get(`${CONTROL_PREFIX}/config`),
    (s, t) => s === 200 && isJsonObject(t),
  );
}

/** The application the device flow plays: the public one when configured (devices hold no secret). */
export function deviceRole(config: TargetConfig): AppRole | undefined {
  if (config.applications?.public) return 'public';
  return config.applications?.confidential ? 'confidential' : undefined;
}

/**
 * Is the device grant offered (answered, or declared), and refused to the configured application?
 * Its authorization is asked as the device checks ask it (oauth.clientRequest): the session asks
 * again once it finds the application's secret taken by HTTP Basic alone, so that a Basic-only
 * provider's refusal of the body is not read as the grant refused (AUTH-CLIENT-BODY's, once).
 */
export async function detectDevice(
  oauth: Pick<TrackedFlows, 'clientRequest'>,
  config: TargetConfig,
  flags: Record<string, boolean>,
): Promise<{ device: boolean; deviceRefused?: string }> {
  const role = deviceRole(config);
  const deviceDeclared = config.features?.[DEVICE_FLAG];
  const app = role && config.applications![role]!;
  // Its client_id a parameter of the source's table (as device/flow.ts sends it), beside HTTP Basic too.
  const askDevice = () =>
    oauth.clientRequest(AUTHORIZE_DEVICE_PATH, { client_id: app!.clientId, scope: app!.scopes[0] }, { app: role });
  const deviceAnswers =
    flags[DEVICE_FLAG] !== false &&
    !!role &&
    (await answers(askDevice, (s, t) => (s === 200 && t.includes('device_code')) || s >= 500));
  const device = flags[DEVICE_FLAG] !== false && (deviceAnswers || deviceDeclared === true);
  // Declared yet refused to the configured application (an absent endpoint is CORE_ENDPOINTS'):
  // the premise of the device checks, reported once (DEVICE_PREMISE).
  if (device && !deviceAnswers && role) return { device, deviceRefused: await refusal(askDevice, 'POST') };
  return { device };
}

export async function detectCapabilities({
  http,
  control,
  config,
  oauth,
  flags,
  passwordInForce,
  discovery,
}: DetectInput): Promise<Capabilities> {
  const clock =
    control &&
    (await answers(
      () => http.post(`${CONTROL_PREFIX}/clock`, { json: { advanceSeconds: 0 } }),
      (s) => Math.floor(s / 100) === 2, // any 2xx
    ));
  const settings =
    control &&
    (await answers(
      () => http.get(`${CONTROL_PREFIX}/settings`),
      (s, t) => s === 200 && isJsonObject(t),
    ));

  const { device, deviceRefused } = await detectDevice(oauth, config, flags);

  const passwordDeclared = config.features?.[PASSWORD_FEATURE];
  let passwordGrant = false;
  let passwordRefused: string | undefined;
  let clientBasicRefused: string | undefined;
  if (passwordInForce && config.user && passwordDeclared !== false) {
    // The grant without client authentication, asked at most once for the two readings below.
    let withoutClient: ReturnType<typeof oauth.password> | undefined;
    const askWithoutClient = () => (withoutClient ??= oauth.password({ auth: 'none' }));
    const first = await oauth.password().catch(() => undefined);
    let answered = first !== undefined && present(first.status);
    // invalid_client to HTTP Basic client credentials refuses how the client authenticated, not the
    // grant nor the user's password: asked once more without client authentication, whatever the
    // config declares, so that the password checks run and AUTH-CLIENT-BASIC alone is blamed.
    if (first && !answered && jsonObject(first)?.error === 'invalid_client' && config.applications?.confidential) {
      answered = await answers(askWithoutClient, present);
      if (answered) clientBasicRefused = `${first.status} invalid_client`;
    }
    passwordGrant = answered || passwordDeclared === true;
    // Declared yet refused: its refusal without client authentication (the answer above, if asked),
    // so that a provider refusing HTTP Basic alone still has its password checks judge that.
    if (!answered && passwordDeclared === true) passwordRefused = await refusal(askWithoutClient);
  }

  const doc = discovery === undefined ? await readDiscovery(http, config.issuer) : (discovery ?? undefined);
  const { path: introspection, away: introspectionAway } = introspectionAt(http, doc);
  // Nothing answered counts as there, as in absentAnswer(): the checks then meet it and say so.
  const restAnswer = await answerOf(http, CURRENT_USER_PATH);
  const restStatus = restAnswer?.status;
  const restApiDown = restStatus !== undefined && GATEWAY_ERRORS.has(restStatus) ? restStatus : undefined;
  // With the configured personal access token: an API that hides itself from anonymous callers
  // (404) is there when the token reads it; a token refused (an account blocked, a token expired or
  // revoked) is the harness's credentials, not the provider's answer, reported once (versioning.api-prefix).
  const pat = config.personalAccessToken;
  // A web page there (a web app's catch-all for any unknown GET) is no API either: 404 or page, no
  // JSON user, with or without the token (review 28).
  const noApi = (answer: Answer | undefined) => answer !== undefined && (answer.status === 404 || pageIn(answer));
  const patAs = async (headers: Record<string, string>) => {
    if (restApiDown !== undefined || !pat) return undefined;
    const answer = await answerOf(http, CURRENT_USER_PATH, 'GET', headers);
    return answer && noApi(answer) ? 404 : answer?.status;
  };
  const refuses = (status: number | undefined) => status === 401 || status === 403;
  const inHeader = await patAs({ 'private-token': pat ?? '' });
  // Refused in the PRIVATE-TOKEN header and read as a Bearer token: the token is good, that one way
  // of presenting it is not served (scopes.presentation-private-token says so, once); the other
  // checks present it as Bearer.
  const patAsBearer = refuses(inHeader) && (await patAs({ authorization: `Bearer ${pat}` })) === 200;
  const patStatus = patAsBearer ? 200 : inHeader;
  const there = (!noApi(restAnswer) || patStatus === 200) && restApiDown === undefined;
  const restPatRefused = there && refuses(patStatus) ? patStatus : undefined;
  const restApi = there && restPatRefused === undefined;
  const absentAnswers: Capabilities['absentAnswers'] = {};
  const unsureAnswers: Capabilities['unsureAnswers'] = {};
  // Absent, not out of reach: the answer its reporter judges (NEEDED_ENDPOINTS).
  if (!there && restApiDown === undefined && restStatus !== undefined) absentAnswers.restApi = restStatus;
  const asked = {} as Record<CoreEndpoint['capability'] | 'tokenInfo' | 'userinfo', boolean>;
  for (const e of [...NEEDED_ENDPOINTS.filter((n) => n.capability !== 'restApi'), ...CORE_ENDPOINTS]) {
    const { absent, unsure } = await probe(http, e);
    asked[e.capability as keyof typeof asked] = absent === undefined;
    if (absent !== undefined) absentAnswers[e.capability] = absent;
    // Asked without the credentials its checks send (EndpointPremise.anonymous): the token and
    // revocation endpoints refuse an empty POST as a gateway does, and their checks' requests
    // carry client credentials no sign-in gateway takes; none of them is unsure.
    if (unsure !== undefined && e.method === 'GET' && NEEDED_ENDPOINTS.includes(e))
      unsureAnswers[e.capability] = unsure;
  }
  return {
    control,
    clock,
    settings,
    device,
    passwordGrant,
    pat: !!config.personalAccessToken,
    // Only the simulator is ours to write to; a live deployment is read, never changed.
    writable: control,
    oidc: Object.values(config.applications ?? {}).some((a) => a?.scopes.includes('openid')),
    restApi,
    ...asked,
    ...(Object.keys(absentAnswers).length ? { absentAnswers } : {}),
    ...(Object.keys(unsureAnswers).length ? { unsureAnswers } : {}),
    introspection: introspection !== undefined,
    ...(introspection !== undefined ? { introspectionPath: introspection } : {}),
    ...(introspectionAway !== undefined ? { introspectionAway } : {}),
    ...(passwordRefused !== undefined ? { passwordRefused } : {}),
    ...(clientBasicRefused !== undefined ? { clientBasicRefused } : {}),
    ...(deviceRefused !== undefined ? { deviceRefused } : {}),
    ...(restApiDown !== undefined ? { restApiDown } : {}),
    ...(restPatRefused !== undefined ? { restPatRefused } : {}),
    ...(patAsBearer ? { patAsBearer } : {}),
  };
}
