/**
 * Per-project (and per-group, per-instance) collections, each a Seq in ascending id order whose
 * records are pure functions of (seed, owner, position). Timestamps grow with the position, so a
 * `created_after` filter is a binary search too.
 */
import type { GroupRec, ProjectRec } from './catalog.js';
import { NOUNS, TOPICS, VERBS, mix, objectHex, pad, pick } from './hash.js';
import { IDS, spread } from './sizes.js';
import { concat, fromArray, generated, type Seq } from './seq.js';

export interface IssueRec {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  labels: string[];
  authorId: number;
  confidential: boolean;
  /** nullable boolean, null reads as false */
  discussionLocked: boolean | null;
  createdAt: number;
}

export interface JobRec {
  id: number;
  name: string;
  stage: string;
  status: string;
  ref: string;
  pipelineId: number;
  createdAt: number;
  allowFailure: boolean;
}

export interface AuditEventRec {
  id: number;
  authorId: number;
  entityId: number;
  entityType: 'Project' | 'Group' | 'User';
  action: string;
  createdAt: number;
}

export interface PackageRec {
  id: number;
  name: string;
  version: string;
  packageType: string;
  createdAt: number;
}

export interface PipelineRec {
  id: number;
  iid: number;
  projectId: number;
  sha: string;
  ref: string;
  status: string;
  createdAt: number;
}

export interface TagRec {
  name: string;
  path: string;
  location: string;
  createdAt: number;
}

export interface FeatureFlagRec {
  name: string;
  description: string;
  active: boolean;
  version: string;
  createdAt: number;
}

const STATUSES = ['success', 'success', 'success', 'failed', 'canceled', 'running', 'pending', 'skipped'];
const STAGES = ['build', 'test', 'deploy'];
const ACTIONS = ['added', 'changed', 'removed', 'signed_in', 'token_created', 'token_revoked'];
const LABELS = ['bug', 'feature', 'docs', 'security', 'performance', 'ux'];
const PACKAGE_TYPES = ['npm', 'maven', 'pypi', 'generic'];

export function createRecords(seed: number, authorIds: (h: number) => number) {
  const issueAt = (p: ProjectRec, pos: number): IssueRec => {
    const h = mix(seed, 31, p.id, pos);
    const labels = LABELS.filter((_, k) => (h >>> (k + 4)) % 4 === 0);
    return {
      id: p.id * IDS.stride + pos + 1,
      iid: pos + 1,
      projectId: p.id,
      title: `${pick(VERBS, h)} ${pick(TOPICS, h >>> 8)}`,
      description: `Issue ${pos + 1} of ${p.pathWithNamespace}.`,
      state: h % 4 === 0 ? 'closed' : 'opened',
      labels,
      authorId: authorIds(h),
      confidential: h % 13 === 0,
      discussionLocked: h % 5 === 0 ? true : h % 5 === 1 ? false : null,
      createdAt: spread(pos, p.sizes.issues),
    };
  };

  return {
    /** generated issues then the ones created at run time (already in iid order) */
    issues(p: ProjectRec, created: readonly IssueRec[] = []): Seq<IssueRec> {
      return concat(
        generated(p.sizes.issues, (pos) => issueAt(p, pos)),
        fromArray(created),
      );
    },
    jobs(p: ProjectRec): Seq<JobRec> {
      return generated(p.sizes.jobs, (pos) => {
        const h = mix(seed, 41, p.id, pos);
        return {
          id: p.id * IDS.stride + pos + 1,
          name: `${pick(STAGES, pos)}:${pick(NOUNS, h)}`,
          stage: pick(STAGES, pos),
          status: pick(STATUSES, h >>> 4),
          ref: h % 6 === 0 ? 'feature/login-page' : 'main',
          pipelineId: p.id * IDS.stride + Math.floor(pos / STAGES.length) + 1,
          createdAt: spread(pos, p.sizes.jobs),
          allowFailure: h % 9 === 0,
        };
      });
    },
    auditEvents(
      owner:
        | { kind: 'instance'; count: number }
        | { kind: 'group'; group: GroupRec; count: number }
        | { kind: 'project'; project: ProjectRec },
    ): Seq<AuditEventRec> {
      const ownerId = owner.kind === 'instance' ? 0 : owner.kind === 'group' ? owner.group.id : owner.project.id;
      const count = owner.kind === 'project' ? owner.project.sizes.auditEvents : owner.count;
      const tag = owner.kind === 'instance' ? 51 : owner.kind === 'group' ? 52 : 53;
      const base = owner.kind === 'instance' ? 0 : ownerId * IDS.stride;
      return generated(count, (pos) => {
        const h = mix(seed, tag, ownerId, pos);
        return {
          id: base + pos + 1,
          authorId: authorIds(h),
          entityId: owner.kind === 'instance' ? authorIds(h >>> 3) : ownerId,
          entityType: owner.kind === 'instance' ? 'User' : owner.kind === 'group' ? 'Group' : 'Project',
          action: pick(ACTIONS, h >>> 7),
          createdAt: spread(pos, count),
        };
      });
    },
    packages(p: ProjectRec): Seq<PackageRec> {
      return generated(p.sizes.packages, (pos) => {
        const h = mix(seed, 61, p.id, pos);
        return {
          id: p.id * 10 + pos + 1,
          name: `@${p.namespace.path}/${pick(NOUNS, h)}`,
          version: `1.${pos}.${h % 10}`,
          packageType: pick(PACKAGE_TYPES, h >>> 5),
          createdAt: spread(pos, p.sizes.packages),
        };
      });
    },
    /** The project's package with this id, if any (ids are projectId * 10 + position). */
    packageOf(p: ProjectRec, packageId: number): PackageRec | undefined {
      const pos = packageId - p.id * 10 - 1;
      return pos >= 0 && pos < p.sizes.packages ? this.packages(p).at(pos) : undefined;
    },
    packagePipelines(p: ProjectRec, pkg: PackageRec): Seq<PipelineRec> {
      return generated(p.sizes.packagePipelines, (pos) => {
        const h = mix(seed, 71, pkg.id, pos);
        return {
          id: pkg.id * IDS.stride + pos + 1,
          iid: pos + 1,
          projectId: p.id,
          sha: objectHex(seed, 72, pkg.id, pos),
          ref: 'main',
          status: pick(STATUSES, h),
          createdAt: spread(pos, p.sizes.packagePipelines),
        };
      });
    },
    /** One registry repository per project with tags; its id is projectId * 10 + 1. */
    registryRepositoryId: (p: ProjectRec) => p.id * 10 + 1,
    /** Tags ascending by name (names are zero-padded so name order is position order). */
    registryTags(p: ProjectRec): Seq<TagRec> {
      return generated(p.sizes.registryTags, (pos) => {
        const name = `v1.${pad(pos, 6)}`;
        const path = `${p.pathWithNamespace}:${name}`;
        return { name, path, location: `registry.example/${path}`, createdAt: spread(pos, p.sizes.registryTags) };
      });
    },
    featureFlags(p: ProjectRec): Seq<FeatureFlagRec> {
      return generated(p.sizes.featureFlags, (pos) => {
        const h = mix(seed, 81, p.id, pos);
        return {
          name: `${pick(NOUNS, h)}_${pos}`,
          description: `Flag ${pos}`,
          active: h % 2 === 0,
          version: 'new_version_flag',
          createdAt: spread(pos, p.sizes.featureFlags),
        };
      });
    },
  };
}

export type Records = ReturnType<typeof createRecords>;
