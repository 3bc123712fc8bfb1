/**
 * The premise of every check that presents an OAuth access token to the REST API: the API accepts
 * them ("a token received from the flow must succeed on GET /api/v4/user", source Authentication).
 * A provider whose API is closed to OAuth tokens (open to personal access tokens only) refuses
 * every such request: that is one cause, reported once by REST_TOKENS_REPORTER on TOK-VERIFY-USER;
 * every other check that leans on it is skipped saying why, and the REST API is no token oracle.
 * Asked at most once per run, and only after a refusal: a provider that serves the token never
 * pays for the question.
 */
import type { Capabilities, CheckContext, HttpResponse } from '../types.js';
import { oncePerRun } from './once-per-run.js';
import { reportedBy } from '../runner/reported-by.js';

/** The REST API's current user: what a token from the flow must be able to read. */
export const CURRENT_USER_PATH = '/api/v4/user';
export const REST_TOKENS_REPORTER = 'scopes.presentation-bearer';
/**
 * Gateway errors: the proxy or load balancer in front answering that the service behind it did not
 * (RFC 9110 §15.6.3-5; Cloudflare's own 520-524 for an origin that failed, refused, timed out or
 * could not be reached). On GET /api/v4/user at start-up they are no answer of the provider's: the
 * REST API is unreachable, reported once (versioning.api-prefix), its checks untested.
 */
export const GATEWAY_ERRORS: ReadonlySet<number> = new Set([502, 503, 504, 520, 521, 522, 523, 524]);

/** The one line of the REST API unreachable: GET /api/v4/user answered a gateway error (`when`: at start-up). */
export const restUnreachable = (status: number, when = '') =>
  `GET ${CURRENT_USER_PATH} answered ${status}, a gateway error${when}: the REST API is unreachable behind the proxy in front, so none of it can be judged; run again once it is served`;

/**
 * What the start-up found that leaves the whole REST API untested, in the one line that says it
 * (versioning.api-prefix, or the first REST check of a run without it): unreachable, or the
 * configured personal access token refused; undefined when neither.
 */
export function restStartupTrouble(caps: Capabilities): string | undefined {
  if (caps.restApiDown !== undefined) return restUnreachable(caps.restApiDown, ', at start-up');
  if (caps.restPatRefused !== undefined)
    return `GET ${CURRENT_USER_PATH} answered ${caps.restPatRefused} to the configured personal access token at start-up: the REST API refuses the harness's credentials (the token expired or revoked, its account blocked, or a gateway in front asking for credentials of its own), so none of it can be judged; check the token and its account, or remove personalAccessToken from the config`;
  return undefined;
}

/** Per run (one caps object a run): why the REST API refuses the flows' tokens, once answered. */
const settled = new WeakMap<Capabilities, string | undefined>();

const refusal = (res: HttpResponse) => res.status === 401 || res.status === 403;

async function ask(t: CheckContext): Promise<string | undefined> {
  const token = (await t.oauth.token('confidential', { scope: 'api' })).access_token;
  const header = await t.http.get(CURRENT_USER_PATH, { bearer: token });
  if (!refusal(header)) return undefined;
  const query = await t.http.get(CURRENT_USER_PATH, { query: { access_token: token } });
  if (!refusal(query)) return undefined;
  return `GET ${CURRENT_USER_PATH} refuses a fresh api access token from the code flow (${header.status} in the Authorization header, ${query.status} as access_token)`;
}

/** Why the REST API refuses the flows' access tokens; undefined when it accepts them. */
export const restRefusesTokens = oncePerRun(async (t) => {
  const why = await ask(t);
  settled.set(t.caps, why);
  return why;
});

/** What the run already knows, without asking: true once the refusal was seen. */
export function restKnownToRefuseTokens(t: CheckContext): boolean {
  return settled.get(t.caps) !== undefined;
}

/**
 * After the REST API refused a flow's token (`res`): when it refuses them all, the premise of this
 * check fails: the reporter fails it on TOK-VERIFY-USER, any other check is skipped naming the
 * reporter. Else (or on another answer) the check goes on to judge `res` itself.
 */
export async function expectRestTakesTokens(t: CheckContext, res: HttpResponse, reports = false): Promise<void> {
  if (!refusal(res)) return;
  const why = await restRefusesTokens(t);
  if (why === undefined) return;
  if (reports)
    t.fail(`${why}: the REST API takes no OAuth access token`, { status: res.status, rules: ['TOK-VERIFY-USER'] });
  t.skip(`${why}: the REST API takes no OAuth access token ${reportedBy(t, REST_TOKENS_REPORTER, 'TOK-VERIFY-USER')}`);
}
