/** REST API v4 operations, by operationId (one module each), and the middlewares of /api/v4. */
import type { Handlers, Middleware } from '../types.js';
import { gitHandlers } from '../git/handlers.js';
import { createPipeline } from './createPipeline.js';
import { createProjectIssue } from './createProjectIssue.js';
import { deleteProjectShare } from './deleteProjectShare.js';
import { getApplicationSettings } from './getApplicationSettings.js';
import { getCurrentUser } from './getCurrentUser.js';
import { getProject } from './getProject.js';
import { getProjectIssue } from './getProjectIssue.js';
import { getRepositoryBranch } from './getRepositoryBranch.js';
import { getRepositoryFile } from './getRepositoryFile.js';
import { getRepositoryTag } from './getRepositoryTag.js';
import { listFeatureFlags } from './listFeatureFlags.js';
import { listGroupAuditEvents } from './listGroupAuditEvents.js';
import { listGroups } from './listGroups.js';
import { listInstanceAuditEvents } from './listInstanceAuditEvents.js';
import { listPackagePipelines } from './listPackagePipelines.js';
import { listProjectAuditEvents } from './listProjectAuditEvents.js';
import { listProjectIssues } from './listProjectIssues.js';
import { listProjectJobs } from './listProjectJobs.js';
import { listProjectPackages } from './listProjectPackages.js';
import { listProjects } from './listProjects.js';
import { listRegistryRepositoryTags } from './listRegistryRepositoryTags.js';
import { listRepositoryTree } from './listRepositoryTree.js';
import { listUsers } from './listUsers.js';
import { createMemberRole, deleteMemberRole, listMemberRoles } from './memberRoles.js';
import { rateLimit } from './rateLimit.js';
import {
  registerRunner,
  resetGroupRunnerRegistrationToken,
  resetProjectRunnerRegistrationToken,
  resetRunnerRegistrationToken,
} from './runners.js';
import { simCreateProject } from './simCreateProject.js';
import { unencodedSlash } from './unencodedSlash.js';
import { urlLength } from './urlLength.js';

export const apiHandlers: Handlers = {
  getCurrentUser,
  listUsers,
  listProjects,
  getProject,
  listProjectIssues,
  createProjectIssue,
  getProjectIssue,
  listRepositoryTree,
  getRepositoryFile,
  getRepositoryBranch,
  getRepositoryTag,
  listProjectJobs,
  createPipeline,
  listProjectAuditEvents,
  listProjectPackages,
  listPackagePipelines,
  listRegistryRepositoryTags,
  listFeatureFlags,
  deleteProjectShare,
  listGroups,
  listGroupAuditEvents,
  listInstanceAuditEvents,
  registerRunner,
  resetRunnerRegistrationToken,
  resetProjectRunnerRegistrationToken,
  resetGroupRunnerRegistrationToken,
  listMemberRoles,
  createMemberRole,
  deleteMemberRole,
  getApplicationSettings,
  simCreateProject,
  ...gitHandlers,
};

/** In order: the URL limit first (414 before anything reads the URL), then rate limiting. */
export const apiMiddlewares: Middleware[] = [urlLength, rateLimit, unencodedSlash];

export { apiFixtures } from './fixtures.js';
