/**
 * Path parameters that need URL-encoding: namespaced project paths (generated and created on a
 * simulator, or listed from a live target) and slashed file, branch and tag names.
 */
import * as fc from 'fast-check';
import { limits, type RuleId } from '../../spec/index.js';
import {
  apiHeaders,
  breaking,
  expectRows,
  reachedFixtureProject,
  jsonObject,
  ownProject,
  projectPath,
  type Expect,
} from '../shared/api.js';
import { sameProject } from '../shared/identity.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import { encodedParam, namespacedPathArb, unencodedParam } from './names.js';

/** Namespaced paths of projects already on a live target, read from the API (first page). */
async function listedPaths(t: CheckContext, headers: Record<string, string>): Promise<string[]> {
  const res = await t.http.get('/api/v4/projects', {
    headers,
    query: { per_page: limits().perPageMax, simple: 'true', membership: 'true', page: 1 },
  });
  t.expect(res.status === 200, `GET /api/v4/projects answered ${res.status}, expected 200`, {
    status: res.status,
    rules: ['ENC-NAMESPACED-PATH'],
  });
  const listed = (res.json<unknown[]>() ?? [])
    .map((p) => (p as Record<string, unknown>)?.path_with_namespace)
    .filter((p): p is string => typeof p === 'string');
  const fixture = t.config.fixtures?.project;
  return [...new Set([...(fixture ? [fixture] : []), ...listed])].filter((p) => p.includes('/'));
}

/**
 * Arbitrary namespaced paths to test: generated (and created) where the harness may create
 * projects through the control API, else those the target already has.
 */
async function pathsToTest(
  t: CheckContext,
  headers: Record<string, string>,
): Promise<{ arb: fc.Arbitrary<string>; prepare: (path: string) => Promise<void> }> {
  if (t.caps.control && t.caps.writable)
    return { arb: namespacedPathArb, prepare: async (path) => void (await ownProject(t, path)) };
  const paths = await listedPaths(t, headers);
  if (paths.length === 0) t.skip('the target lists no namespaced project and the harness may not create one');
  return { arb: fc.constantFrom(...paths), prepare: async () => undefined };
}

/** The project `path` answered; `rules` are what another answer breaks (it depends on how it was addressed). */
function expectProject(
  t: CheckContext,
  res: HttpResponse,
  path: string,
  how: string,
  rules: RuleId[],
  want?: unknown,
): Record<string, unknown> {
  const expectIt: Expect = breaking(t, ...rules);
  const body = jsonObject(res);
  expectIt(
    res.status === 200 && body,
    `GET of project ${JSON.stringify(path)} ${how} answered ${res.status}, expected 200 with the project`,
    { path, status: res.status },
  );
  // Which project it is, where the answer tells (the source shows no project fields).
  expectIt(
    sameProject(body, { path, id: want }) !== false,
    `GET of project ${JSON.stringify(path)} ${how} answered another project`,
    {
      path,
      pathWithNamespace: body.path_with_namespace,
    },
  );
  return body;
}

export const namespacedPaths: Check = {
  id: 'encoding.namespaced-path-encoded',
  suite: 'encoding',
  needs: ['restApi'],
  title: 'a namespaced project path resolves when %2F-encoded (same project as its id) and 404s with bare slashes',
  rules: ['ENC-NAMESPACED-PATH', 'ENC-PATH-PARAM-ENCODED', 'ENC-UNENCODED-404'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const { arb, prepare } = await pathsToTest(t, headers);
    await t.property(arb, async (path) => {
      await prepare(path);
      const encoded: RuleId[] = ['ENC-NAMESPACED-PATH', 'ENC-PATH-PARAM-ENCODED'];
      const project = expectProject(
        t,
        await t.http.get(projectPath(path), { headers }),
        path,
        `as ${encodedParam(path)}`,
        encoded,
      );
      expectProject(
        t,
        await t.http.get(projectPath(Number(project.id)), { headers }),
        path,
        `by its id ${String(project.id)}`,
        ['ENC-NAMESPACED-PATH'],
        project.id,
      );
      const issues = await t.http.get(`${projectPath(path)}/issues`, { headers });
      t.expect(
        issues.status === 200,
        `GET /projects/${encodedParam(path)}/issues answered ${issues.status}, expected 200`,
        { path, status: issues.status, rules: ['ENC-PATH-PARAM-ENCODED'] },
      );
      for (const suffix of ['', '/issues']) {
        const raw = `/api/v4/projects/${unencodedParam(path)}${suffix}`;
        const res = await t.http.get(raw, { headers });
        t.expect(
          res.status === 404,
          `GET ${raw} (slashes not encoded) must match no endpoint and answer 404, got ${res.status}`,
          {
            path: raw,
            status: res.status,
            rules: ['ENC-UNENCODED-404', 'ENC-PATH-PARAM-ENCODED'],
          },
        );
      }
    });
  },
};

/** The project's default branch (the ref file reads need). */
async function defaultBranch(t: CheckContext, project: string, headers: Record<string, string>): Promise<string> {
  const body = jsonObject(await t.http.get(projectPath(project), { headers }));
  t.expect(typeof body?.default_branch === 'string', `the fixture project ${project} names no default_branch`, {
    rules: ['ENC-SLASH-IN-NAMES'],
  });
  return body.default_branch;
}

/** Blob paths of the fixture project's tree that contain a `/` (first page, recursive). */
async function slashedFiles(t: CheckContext, project: string, headers: Record<string, string>): Promise<string[]> {
  const res = await t.http.get(`${projectPath(project)}/repository/tree`, {
    headers,
    query: { recursive: 'true', per_page: limits().perPageMax },
  });
  t.expect(res.status === 200, `the repository tree of ${project} answered ${res.status}, expected 200`, {
    status: res.status,
    rules: ['ENC-SLASH-IN-NAMES'],
  });
  const entries = expectRows(res.json(), `the repository tree of ${project}`, (ok, message) =>
    t.expect(ok, message, { rules: ['ENC-SLASH-IN-NAMES'] }),
  );
  return entries
    .filter((e) => e.type === 'blob' && typeof e.path === 'string' && e.path.includes('/'))
    .map((e) => e.path as string);
}

interface Named {
  kind: 'file' | 'branch' | 'tag';
  name: string;
}

function resourcePath(project: string, item: Named, encode: (s: string) => string): string {
  const base = projectPath(project);
  if (item.kind === 'file') return `${base}/repository/files/${encode(item.name)}`;
  if (item.kind === 'branch') return `${base}/repository/branches/${encode(item.name)}`;
  return `${base}/repository/tags/${encode(item.name)}`;
}

export const slashedNames: Check = {
  id: 'encoding.slashed-names-encoded',
  suite: 'encoding',
  needs: ['restApi'],
  title: 'file paths, branch and tag names containing / resolve when %2F-encoded and 404 with bare slashes',
  rules: ['ENC-SLASH-IN-NAMES', 'ENC-UNENCODED-404'],
  async run(t: CheckContext) {
    const project = await reachedFixtureProject(t);
    const headers = await apiHeaders(t);
    const ref = await defaultBranch(t, project, headers);
    const named: Named[] = (await slashedFiles(t, project, headers)).map((name) => ({ kind: 'file' as const, name }));
    const { slashedBranch, slashedTag } = t.config.fixtures ?? {};
    if (slashedBranch) named.push({ kind: 'branch', name: slashedBranch });
    if (slashedTag) named.push({ kind: 'tag', name: slashedTag });
    if (named.length === 0) t.skip(`the fixture project has no file, branch or tag with a / in its name`);
    const expectSlashed: Expect = breaking(t, 'ENC-SLASH-IN-NAMES');
    await t.property(fc.constantFrom(...named), async (item) => {
      const query = item.kind === 'file' ? { ref } : undefined;
      const encoded = resourcePath(project, item, encodeURIComponent);
      const res = await t.http.get(encoded, { headers, query });
      const body = jsonObject(res);
      expectSlashed(
        res.status === 200 && body,
        `GET ${encoded} answered ${res.status}, expected 200 for ${item.kind} ${JSON.stringify(item.name)}`,
        { ...item, status: res.status },
      );
      const named = item.kind === 'file' ? body.file_path : body.name;
      expectSlashed(named === item.name, `GET ${encoded} answered another ${item.kind}`, { ...item, answered: named });
      const raw = resourcePath(project, item, unencodedParam);
      const bare = await t.http.get(raw, { headers, query });
      t.expect(bare.status === 404, `GET ${raw} (slashes not encoded) must answer 404, got ${bare.status}`, {
        ...item,
        status: bare.status,
        rules: ['ENC-UNENCODED-404'],
      });
    });
  },
};
