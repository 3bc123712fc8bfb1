/** Shared by the repository endpoints: the project's files and refs (simulator/data/tree.ts). */
import { dataset, type ProjectRec } from '../data/index.js';
import { BRANCHES, TAGS, repositoryFiles, type RepoFile } from '../data/tree.js';
import type { Ctx } from '../types.js';
import { hashString, objectHex } from '../data/hash.js';

export function filesOf(ctx: Ctx, project: ProjectRec): RepoFile[] {
  return repositoryFiles(dataset(ctx.sim).seed, project.id);
}

export function refExists(ref: string): boolean {
  return BRANCHES.includes(ref) || TAGS.includes(ref);
}

/** A stable commit id per (project, ref). */
export function commitId(ctx: Ctx, project: ProjectRec, ref: string): string {
  return objectHex(dataset(ctx.sim).seed, 95, project.id, hashString(ref));
}
