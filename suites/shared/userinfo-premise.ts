/**
 * The premise of the checks that judge what userinfo answers anything but a valid openid access
 * token (one never issued, one without openid) or how it labels an answer: that it serves a valid
 * one at all (OIDC-USERINFO, oidc.userinfo's). A userinfo answering a server error to every token
 * (its handler failing before it reads the token, a user store down) breaks that sentence alone,
 * once: its 500 to another token says nothing of that token, so the checks that lean on it are
 * untested, naming the reporter (before, OIDC-USERINFO-INVALID-TOKEN, OIDC-USERINFO-REQUIRES-OPENID
 * and ENC-JSON-CONTENT-TYPE failed beside it). Asked at most once per run, and only after a server
 * error there: a provider that serves userinfo never pays for the question.
 */
import type { CheckContext, HttpResponse } from '../types.js';
import { oncePerRun } from './once-per-run.js';
import { NEEDED_ENDPOINTS } from '../runner/capabilities.js';
import { tokenAccepted, USERINFO_PATH } from './oauth.js';
import { reportedBy } from '../runner/reported-by.js';

async function ask(t: CheckContext): Promise<string | undefined> {
  const app = (['confidential', 'public'] as const).find((r) => t.config.applications?.[r]?.scopes.includes('openid'));
  // Without an openid application nothing tells: the answer is judged as it is.
  if (!app) return undefined;
  const token = (await t.oauth.token(app, { scope: 'openid' })).access_token;
  const res = await t.http.get(USERINFO_PATH, { bearer: token });
  return tokenAccepted(res)
    ? undefined
    : `GET ${USERINFO_PATH} answered ${res.status} to a fresh access token with openid too`;
}

/** Why userinfo serves no valid openid access token; undefined when it serves one, or nothing tells. */
const userinfoFails = oncePerRun(ask);

/**
 * Why userinfo's server error `res` says nothing of the token this check sent: the endpoint
 * serves no valid openid token either, which its reporter judges, once. Undefined for any other
 * answer, or when a valid token is served (the check then judges `res` itself).
 */
export async function userinfoDown(t: CheckContext, res: HttpResponse): Promise<string | undefined> {
  if (res.status < 500) return undefined;
  const why = await userinfoFails(t);
  if (why === undefined) return undefined;
  const { reporter, rule } = NEEDED_ENDPOINTS.find((e) => e.capability === 'userinfo')!;
  return `${why}: its ${res.status} here says nothing of this token ${reportedBy(t, reporter, rule)}`;
}

/** userinfoDown, the check skipped when it says why: what it would judge is untested. */
export async function expectUserinfoServes(t: CheckContext, res: HttpResponse): Promise<void> {
  const why = await userinfoDown(t, res);
  if (why !== undefined) t.skip(why);
}
