/**
 * Groups and projects: a few fixtures with known paths (the target config's `fixtures`), many
 * generated ones computed from their index, and the ones created at run time through the control
 * API. Lookups by id or full path are O(1) for all three kinds: a generated path carries its index.
 */
import { ADJECTIVES, NOUNS, bucket, mix, pad, pick } from './hash.js';
import { BASE, IDS, spread } from './sizes.js';
import { concat, fromArray, generated, mergeSorted, type Seq } from './seq.js';

export type Visibility = 'public' | 'internal' | 'private';

export interface GroupRec {
  id: number;
  name: string;
  path: string;
  fullPath: string;
  parentId: number | null;
  visibility: Visibility;
  createdAt: number;
}

export interface ProjectSizes {
  issues: number;
  jobs: number;
  auditEvents: number;
  packages: number;
  /** pipelines of each package */
  packagePipelines: number;
  registryTags: number;
  featureFlags: number;
}

export interface ProjectRec {
  id: number;
  name: string;
  path: string;
  namespace: GroupRec;
  pathWithNamespace: string;
  visibility: Visibility;
  description: string;
  createdAt: number;
  archived: boolean;
  /** generated nullable boolean: null reads as false */
  emailsDisabled: boolean | null;
  sizes: ProjectSizes;
}

/**
 * One id space: fixed records (ids from 1), generated ones (ids from IDS.generatedBase, computed
 * from their index, which their last path segment carries as `-<index>`), then records created at
 * run time. Lookup by id or full path is O(1) in each part; groups and projects share it.
 */
function recordSpace<T extends { id: number }>(
  fixed: T[],
  generatedCount: number,
  generate: (i: number) => T,
  pathOf: (r: T) => string,
) {
  const created: T[] = [];
  const byKnownPath = new Map<string, T>(fixed.map((r) => [pathOf(r), r]));
  const indexOf = (segment: string): number => {
    const m = /-(\d{5,})$/.exec(segment);
    return m ? Number(m[1]) : -1;
  };
  return {
    fixed,
    created,
    get count() {
      return fixed.length + generatedCount + created.length;
    },
    get byId(): Seq<T> {
      return concat(fromArray(fixed), generated(generatedCount, generate), fromArray(created));
    },
    get(id: number): T | undefined {
      if (id >= 1 && id <= fixed.length) return fixed[id - 1];
      const i = id - IDS.generatedBase;
      if (i >= 0 && i < generatedCount) return generate(i);
      return created[i - generatedCount];
    },
    byPath(path: string): T | undefined {
      const known = byKnownPath.get(path);
      if (known) return known;
      const i = indexOf(path.slice(path.lastIndexOf('/') + 1));
      if (i < 0 || i >= generatedCount) return undefined;
      const r = generate(i);
      return pathOf(r) === path ? r : undefined;
    },
    /** The id the next created record takes. */
    nextId: () => IDS.generatedBase + generatedCount + created.length,
    add(r: T): void {
      created.push(r);
      byKnownPath.set(pathOf(r), r);
    },
  };
}

export interface Catalog {
  groups: {
    count: number;
    byId: Seq<GroupRec>;
    byName: Seq<GroupRec>;
    get(id: number): GroupRec | undefined;
    byPath(path: string): GroupRec | undefined;
    auditEvents(group: GroupRec): number;
  };
  projects: {
    count: number;
    byId: Seq<ProjectRec>;
    get(id: number): ProjectRec | undefined;
    byPath(path: string): ProjectRec | undefined;
  };
  /** old full path -> current project (renamed projects) */
  redirects: Map<string, ProjectRec>;
  create(path: string, name?: string): { project: ProjectRec; created: boolean } | { error: string };
  fixtures: {
    project: ProjectRec;
    largeProject: ProjectRec;
    movedProject: ProjectRec;
    movedFrom: string;
    group: GroupRec;
  };
}

const SMALL: ProjectSizes = {
  issues: 0,
  jobs: 0,
  auditEvents: 0,
  packages: 0,
  packagePipelines: 0,
  registryTags: 0,
  featureFlags: 0,
};

export function createCatalog(seed: number, seedSize: number): Catalog {
  const groupCount = BASE.groups * seedSize;
  const projectCount = BASE.projects * seedSize;
  const fixtureTime = Date.UTC(2020, 5, 1);

  const fixedGroups: GroupRec[] = [
    {
      id: 1,
      name: 'group',
      path: 'group',
      fullPath: 'group',
      parentId: null,
      visibility: 'public',
      createdAt: fixtureTime,
    },
    {
      id: 2,
      name: 'subgroup',
      path: 'subgroup',
      fullPath: 'group/subgroup',
      parentId: 1,
      visibility: 'public',
      createdAt: fixtureTime,
    },
  ];
  const [root, sub] = fixedGroups;

  // Generated groups: every fourth one nests under the group before it (nested namespaces).
  const generatedGroup = (i: number): GroupRec => {
    const b = bucket(i, groupCount, ADJECTIVES.length * NOUNS.length);
    const name = `${ADJECTIVES[Math.floor(b / NOUNS.length)]}-${NOUNS[b % NOUNS.length]}-${pad(i, 5)}`;
    const parent = i % 4 === 3 ? generatedGroup(i - 1) : null;
    return {
      id: IDS.generatedBase + i,
      name,
      path: name,
      fullPath: parent ? `${parent.fullPath}/${name}` : name,
      parentId: parent?.id ?? null,
      // all public: anonymous group lists then need no filter, so keyset stays a binary search
      visibility: 'public',
      createdAt: spread(i, groupCount),
    };
  };
  const groupSpace = recordSpace(fixedGroups, groupCount, generatedGroup, (g) => g.fullPath);

  const groups: Catalog['groups'] = {
    get count() {
      return groupSpace.count;
    },
    get byId() {
      return groupSpace.byId;
    },
    /** ascending by (name, id): generated names sort like their index; the few others merge in */
    get byName() {
      const cmp = (a: GroupRec, b: GroupRec) => (a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.id - b.id);
      return mergeSorted(generated(groupCount, generatedGroup), [...groupSpace.fixed, ...groupSpace.created], cmp);
    },
    get: (id) => groupSpace.get(id),
    byPath: (path) => groupSpace.byPath(path),
    auditEvents: (group) =>
      group.id === root.id ? BASE.fixtureGroupAuditEvents * seedSize : 10 + (mix(seed, 12, group.id) % 50),
  };

  const project = (
    id: number,
    name: string,
    path: string,
    ns: GroupRec,
    sizes: Partial<ProjectSizes>,
    extra: Partial<ProjectRec> = {},
  ): ProjectRec => ({
    id,
    name,
    path,
    namespace: ns,
    pathWithNamespace: `${ns.fullPath}/${path}`,
    visibility: 'public',
    description: `${name}: a project of the reference simulator`,
    createdAt: fixtureTime + id * 3_600_000,
    archived: false,
    emailsDisabled: null,
    sizes: { ...SMALL, ...sizes },
    ...extra,
  });
  const s = seedSize;
  const fixedProjects: ProjectRec[] = [
    project(1, 'Project', 'project', sub, {
      issues: BASE.fixtureIssues,
      jobs: BASE.fixtureJobs * s,
      auditEvents: BASE.fixtureProjectAuditEvents * s,
      packages: 3,
      packagePipelines: BASE.fixturePackagePipelines * s,
      registryTags: BASE.fixtureRegistryTags * s,
      featureFlags: 6,
    }),
    project(2, 'Large Project', 'large-project', root, {
      issues: BASE.largeProjectIssues * s,
      jobs: 40,
      auditEvents: 30,
    }),
    project(3, 'New Name', 'new-name', root, { issues: 12, jobs: 5, auditEvents: 5 }),
    project(4, 'C++ Tools', 'cpp-tools', root, { issues: 8, jobs: 3 }),
    project(
      5,
      'Private Project',
      'private-project',
      root,
      { issues: 4 },
      { visibility: 'private', emailsDisabled: true },
    ),
  ];
  const movedFrom = 'group/old-name';

  const generatedProject = (i: number): ProjectRec => {
    const ns = generatedGroup(i % groupCount);
    const h = mix(seed, 21, i);
    const name = `${pick(NOUNS, h)}-${pad(i, 5)}`;
    return {
      ...project(IDS.generatedBase + i, name, name, ns, {
        issues: 5 + (h % 60),
        jobs: 10 + ((h >>> 6) % 90),
        auditEvents: 5 + ((h >>> 12) % 20),
        packages: 1 + ((h >>> 3) % 3),
        packagePipelines: 3 + ((h >>> 9) % 20),
        registryTags: 10 + ((h >>> 15) % 40),
        featureFlags: (h >>> 20) % 4,
      }),
      visibility: ns.visibility === 'private' || h % 7 === 0 ? 'private' : 'public',
      createdAt: spread(i, projectCount),
      archived: h % 11 === 0,
      emailsDisabled: h % 3 === 0 ? null : h % 3 === 1,
    };
  };
  const projectSpace = recordSpace(fixedProjects, projectCount, generatedProject, (p) => p.pathWithNamespace);

  const projects: Catalog['projects'] = {
    get count() {
      return projectSpace.count;
    },
    get byId() {
      return projectSpace.byId;
    },
    get: (id) => projectSpace.get(id),
    byPath: (path) => projectSpace.byPath(path),
  };

  const ensureGroup = (fullPath: string): GroupRec => {
    const existing = groups.byPath(fullPath);
    if (existing) return existing;
    const cut = fullPath.lastIndexOf('/');
    const parent = cut > 0 ? ensureGroup(fullPath.slice(0, cut)) : null;
    const path = fullPath.slice(cut + 1);
    const g: GroupRec = {
      id: groupSpace.nextId(),
      name: path,
      path,
      fullPath,
      parentId: parent?.id ?? null,
      visibility: 'public',
      createdAt: fixtureTime,
    };
    groupSpace.add(g);
    return g;
  };

  return {
    groups,
    projects,
    redirects: new Map([[movedFrom, fixedProjects[2]]]),
    create(fullPath, name) {
      const segments = fullPath.split('/');
      if (
        segments.length < 2 ||
        segments.some((seg) => seg.length === 0 || seg === '.' || seg === '..' || /[\u0000-\u001f]/.test(seg))
      ) {
        return { error: 'path must be namespace/project with non-empty segments (no control characters, no . or ..)' };
      }
      const existing = projects.byPath(fullPath);
      if (existing) return { project: existing, created: false };
      const ns = ensureGroup(segments.slice(0, -1).join('/'));
      const path = segments[segments.length - 1];
      const p = project(projectSpace.nextId(), name ?? path, path, ns, {
        issues: 3,
        jobs: 3,
        auditEvents: 3,
      });
      projectSpace.add(p);
      return { project: p, created: true };
    },
    fixtures: {
      project: fixedProjects[0],
      largeProject: fixedProjects[1],
      movedProject: fixedProjects[2],
      movedFrom,
      group: root,
    },
  };
}
