/**
 * Helpers of the API suites. Credentials for REST calls: the configured personal access token when there
 * is one (PRIVATE-TOKEN), else one `api` access token minted through the code flow, once per
 * check: it is tracked by t.oauth (one per check), which revokes it when the check ends.
 */
import { profiles, type RuleId } from '../../spec/index.js';
import type { CheckContext, HttpResponse, OAuthFlows } from '../types.js';
import { jsonObject, jsonValue } from './json.js';
import { REST_TOKENS_REPORTER, restRefusesTokens } from './rest-tokens.js';
import { reportedBy } from '../runner/reported-by.js';

export { jsonObject };
export { expectRows, integerId, jsonValue } from './json.js';
export { breaking, type Expect } from './rules.js';

const minted = new WeakMap<OAuthFlows, Promise<string>>();

export async function apiHeaders(t: CheckContext): Promise<Record<string, string>> {
  if (t.caps.pat && t.config.personalAccessToken)
    return t.caps.patAsBearer
      ? { authorization: `Bearer ${t.config.personalAccessToken}` }
      : { 'PRIVATE-TOKEN': t.config.personalAccessToken };
  if (!t.config.applications?.confidential)
    t.skip('no personal access token and no confidential application to mint an api token');
  // A REST API closed to the flows' tokens is one cause, reported once (rest-tokens.ts): what
  // reaches the API only with such a token is untested, not failed.
  const closed = await restRefusesTokens(t);
  if (closed !== undefined)
    t.skip(
      `${closed}: the REST API takes no OAuth access token and no personal access token is configured ${reportedBy(t, REST_TOKENS_REPORTER, 'TOK-VERIFY-USER')}`,
    );
  let token = minted.get(t.oauth);
  if (!token) {
    token = t.oauth.token('confidential', { scope: 'api' }).then((r) => r.access_token);
    minted.set(t.oauth, token);
    // A failed mint is not cached: the next check may try again and report its own reason.
    token.catch(() => minted.delete(t.oauth));
  }
  return { authorization: `Bearer ${await token}` };
}

/** `/api/v4/projects/<id>` with the namespaced path URL-encoded as the source requires. */
export function projectPath(pathWithNamespace: string | number): string {
  return `/api/v4/projects/${encodeURIComponent(String(pathWithNamespace))}`;
}

/** The fixture project (namespaced path) or skip with the reason. */
export function fixtureProject(t: CheckContext): string {
  const project = t.config.fixtures?.project;
  if (!project) t.skip('target config names no fixtures.project');
  return project;
}

/** Per check (keyed like the minted token): what reaching each namespaced project by its encoded path gave. */
const reached = new WeakMap<OAuthFlows, Map<string, Promise<Reach>>>();
type Reach = { ok: true } | { ok: false; status: number; listed: boolean };

async function reach(t: CheckContext, path: string): Promise<Reach> {
  const headers = await apiHeaders(t);
  const res = await t.http.get(projectPath(path), { headers });
  if (res.status === 200 && jsonObject(res)) return { ok: true };
  // Is the project there at all? The list, searched by its last segment, names it by path. Its first
  // page asked by number: another default page (PAG-PAGE-DEFAULT's) must not make it unlisted.
  const search = path.slice(path.lastIndexOf('/') + 1);
  const list = await t.http.get('/api/v4/projects', {
    headers,
    query: { search, simple: 'true', per_page: 100, page: 1 },
  });
  const rows = list.status === 200 ? jsonValue(list) : null;
  const listed =
    Array.isArray(rows) &&
    rows.some((p) => String((p as Record<string, unknown>)?.path_with_namespace).toLowerCase() === path.toLowerCase());
  return { ok: false, status: res.status, listed };
}

/**
 * The namespaced project `path` answers at its %2F-encoded path: the premise of every check that
 * reaches a project that way for another rule. Otherwise the check stops without a verdict on its
 * own rules: a project the API lists under that path but refuses by it breaks ENC-NAMESPACED-PATH
 * (the failure names that rule); one it does not list is the target config's trouble (errored).
 * Asked once per check and path.
 */
export async function reachProject(t: CheckContext, path: string): Promise<string> {
  let byPath = reached.get(t.oauth);
  if (!byPath) reached.set(t.oauth, (byPath = new Map<string, Promise<Reach>>()));
  let answer = byPath.get(path);
  if (!answer) {
    answer = reach(t, path);
    byPath.set(path, answer);
    answer.catch(() => byPath.delete(path));
  }
  const result = await answer;
  if (result.ok) return path;
  if (result.listed)
    t.fail(
      `project ${JSON.stringify(path)} is listed by GET /api/v4/projects but GET ${projectPath(path)} (its %2F-encoded path) answered ${result.status}; this check needs the project reached that way`,
      { path, status: result.status, rules: ['ENC-NAMESPACED-PATH'] },
    );
  t.harness(
    `project ${JSON.stringify(path)} named by the target config answered ${result.status} and is not listed by GET /api/v4/projects (is the fixture readable with the API credentials?)`,
  );
}

/** The fixture project, reached by its encoded path (reachProject), or skip when the config names none. */
export async function reachedFixtureProject(t: CheckContext): Promise<string> {
  return reachProject(t, fixtureProject(t));
}

/**
 * An instance setting: as the settings API shows it (administrators), else the profile default
 * (spec/profiles.yaml settings), which is what the simulator plays unless told otherwise.
 */
export async function instanceSetting(t: CheckContext, apiField: string, profileKey: string): Promise<number> {
  const res = await t.http.get('/api/v4/application/settings', { headers: await apiHeaders(t) });
  const shown = res.status === 200 ? jsonObject(res)?.[apiField] : undefined;
  if (typeof shown === 'number' && shown > 0) return shown;
  return Number(profiles().settings[profileKey]?.default);
}

/**
 * A project of the harness's own at `path`, created through the simulator's control API (which
 * answers an existing path with that project). Only where caps.control and caps.writable hold.
 */
export async function ownProject(t: CheckContext, path: string): Promise<string> {
  const res = await t.http.post('/-/simulator/projects', { json: { path } });
  t.expect(
    res.status >= 200 && res.status < 300,
    `the control API could not create project ${JSON.stringify(path)} (status ${res.status})`,
    {
      path,
      status: res.status,
      body: res.text.slice(0, 200),
    },
  );
  return path;
}

/**
 * A POST that creates something was served: any 2xx proves the creation (a failure breaks
 * `rules`); that it is 201 Created is ENC-CREATED-201 (should), judged softly, so the check must
 * list that rule too. Returns whether it was served.
 */
export function createdSoftly(t: CheckContext, res: HttpResponse, what: string, rules: RuleId[]): boolean {
  const served = t.soft(res.status >= 200 && res.status < 300, `${what} answered ${res.status}, expected a 2xx`, {
    status: res.status,
    body: res.text.slice(0, 200),
    rules,
  });
  if (served)
    t.soft(res.status === 201, `${what} answered ${res.status}; a create answers 201 Created`, {
      status: res.status,
      rules: ['ENC-CREATED-201'],
    });
  return served;
}
