/**
 * JSON shapes of the REST resources (fields are "not shown" by the source; these follow the
 * documented public behaviour). Attributes removed in a release are absent from it on, per the
 * window of the rule that announces the removal.
 */
import type { RuleId } from '../../spec/index.js';
import type { Ctx } from '../types.js';
import type { GroupRec, ProjectRec } from '../data/catalog.js';
import type {
  AuditEventRec,
  FeatureFlagRec,
  IssueRec,
  JobRec,
  PackageRec,
  PipelineRec,
  TagRec,
} from '../data/records.js';
import type { UserRec } from '../data/users.js';
import { ruleInForce } from '../release.js';

// Records are pure functions of (seed, index): their timestamps repeat from page to page, and
// formatting a date is a large part of rendering one. Bounded: cleared when full (a few pages'
// worth: 50,000 entries kept 3 MiB after a load of random deep pages, for few hits).
const isoCache = new Map<number, string>();
function iso(ms: number): string {
  let text = isoCache.get(ms);
  if (text === undefined) {
    if (isoCache.size >= 4096) isoCache.clear();
    isoCache.set(ms, (text = new Date(ms).toISOString()));
  }
  return text;
}

/** Removed attributes stay until their rule's release (the fault keeps them forever). */
function removed(ctx: Ctx, rule: RuleId): boolean {
  return ruleInForce(ctx.sim, rule) && !ctx.sim.fault('removed-attributes-present');
}

export function renderUser(ctx: Ctx, u: UserRec): Record<string, unknown> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: 'active',
    locked: false,
    avatar_url: null,
    web_url: `${ctx.origin}/${encodeURIComponent(u.username)}`,
    created_at: iso(u.createdAt),
    bot: u.bot,
    private_profile: u.privateProfile,
  };
}

/** The authenticated user (GET /user) sees a few more of their own fields. */
export function renderCurrentUser(ctx: Ctx, u: UserRec): Record<string, unknown> {
  return { ...renderUser(ctx, u), email: u.email, is_admin: u.admin, two_factor_enabled: false };
}

export function renderGroup(ctx: Ctx, g: GroupRec): Record<string, unknown> {
  return {
    id: g.id,
    name: g.name,
    path: g.path,
    full_name: g.fullPath.split('/').join(' / '),
    full_path: g.fullPath,
    parent_id: g.parentId,
    visibility: g.visibility,
    web_url: `${ctx.origin}/groups/${g.fullPath}`,
    created_at: iso(g.createdAt),
  };
}

export function renderProject(ctx: Ctx, p: ProjectRec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    name: p.name,
    path: p.path,
    name_with_namespace: `${p.namespace.fullPath.split('/').join(' / ')} / ${p.name}`,
    path_with_namespace: p.pathWithNamespace,
    description: p.description,
    default_branch: 'main',
    visibility: p.visibility,
    namespace: {
      id: p.namespace.id,
      name: p.namespace.name,
      path: p.namespace.path,
      kind: 'group',
      full_path: p.namespace.fullPath,
    },
    web_url: `${ctx.origin}/${p.pathWithNamespace}`,
    http_url_to_repo: `${ctx.origin}/${p.pathWithNamespace}.git`,
    created_at: iso(p.createdAt),
    archived: p.archived,
    emails_disabled: p.emailsDisabled,
    open_issues_count: p.sizes.issues,
  };
  if (!removed(ctx, 'VER-CI-JOB-TOKEN-SCOPE-REMOVED')) out.ci_job_token_scope_enabled = false;
  return out;
}

/**
 * A project's JSON text, kept per simulator (dropped with the dataset on reset) and origin: a
 * project record never changes once made, created ones included, and its text depends only on
 * the record, the origin and what is fixed per simulator (release, faults). Rendering and
 * serialising 20 projects was most of a projects page's time. Bounded: cleared past a few origins.
 */
export function projectJson(ctx: Ctx, p: ProjectRec): string {
  const byOrigin = ctx.sim.state('api.projectJson', () => new Map<string, Map<number, string>>());
  let texts = byOrigin.get(ctx.origin);
  if (!texts) {
    if (byOrigin.size >= 8) byOrigin.clear();
    byOrigin.set(ctx.origin, (texts = new Map<number, string>()));
  }
  let text = texts.get(p.id);
  if (text === undefined) texts.set(p.id, (text = JSON.stringify(renderProject(ctx, p))));
  return text;
}

export function renderIssue(ctx: Ctx, p: ProjectRec, i: IssueRec): Record<string, unknown> {
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description,
    state: i.state,
    labels: i.labels,
    author: { id: i.authorId },
    confidential: i.confidential,
    discussion_locked: i.discussionLocked,
    created_at: iso(i.createdAt),
    updated_at: iso(i.createdAt),
    web_url: `${ctx.origin}/${p.pathWithNamespace}/-/issues/${i.iid}`,
  };
}

export function renderJob(ctx: Ctx, p: ProjectRec, j: JobRec): Record<string, unknown> {
  return {
    id: j.id,
    name: j.name,
    stage: j.stage,
    status: j.status,
    ref: j.ref,
    allow_failure: j.allowFailure,
    pipeline: { id: j.pipelineId, project_id: p.id, ref: j.ref },
    created_at: iso(j.createdAt),
    web_url: `${ctx.origin}/${p.pathWithNamespace}/-/jobs/${j.id}`,
  };
}

export function renderAuditEvent(e: AuditEventRec): Record<string, unknown> {
  return {
    id: e.id,
    author_id: e.authorId,
    entity_id: e.entityId,
    entity_type: e.entityType,
    details: { action: e.action },
    created_at: iso(e.createdAt),
  };
}

export function renderPipeline(p: PipelineRec): Record<string, unknown> {
  return {
    id: p.id,
    iid: p.iid,
    project_id: p.projectId,
    sha: p.sha,
    ref: p.ref,
    status: p.status,
    created_at: iso(p.createdAt),
  };
}

export function renderPackage(ctx: Ctx, pkg: PackageRec, pipelines: PipelineRec[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: pkg.id,
    name: pkg.name,
    version: pkg.version,
    package_type: pkg.packageType,
    created_at: iso(pkg.createdAt),
  };
  if (!removed(ctx, 'VER-PACKAGES-PIPELINES-REMOVED')) out.pipelines = pipelines.map(renderPipeline);
  return out;
}

export function renderTag(t: TagRec): Record<string, unknown> {
  return { name: t.name, path: t.path, location: t.location, created_at: iso(t.createdAt) };
}

export function renderFeatureFlag(ctx: Ctx, f: FeatureFlagRec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: f.name,
    description: f.description,
    active: f.active,
    created_at: iso(f.createdAt),
  };
  if (!removed(ctx, 'VER-FEATURE-FLAG-VERSION-REMOVED')) out.version = f.version;
  return out;
}
