/**
 * The REST data of one simulator: generated from options.seed and options.seedSize on first use,
 * dropped by reset(). Only what is created at run time takes memory.
 */
import type { Sim } from '../types.js';
import { createCatalog, type Catalog, type ProjectRec } from './catalog.js';
import { createRecords, type IssueRec, type Records } from './records.js';
import { IDS } from './sizes.js';
import { generatedUserCount } from './users.js';

export interface Dataset {
  seed: number;
  seedSize: number;
  catalog: Catalog;
  records: Records;
  /** issues created through the API, per project id */
  createdIssues: Map<number, IssueRec[]>;
  issuesOf(project: ProjectRec): ReturnType<Records['issues']>;
}

export function dataset(sim: Sim): Dataset {
  return sim.state('api.dataset', () => {
    const { seed, seedSize } = sim.options;
    const users = generatedUserCount(seedSize);
    const catalog = createCatalog(seed, seedSize);
    // authors: the generated users (root and other real users author what they create)
    const records = createRecords(seed, (h) => IDS.userBase + (h % users));
    const createdIssues = new Map<number, IssueRec[]>();
    return {
      seed,
      seedSize,
      catalog,
      records,
      createdIssues,
      issuesOf: (project) => records.issues(project, createdIssues.get(project.id)),
    };
  });
}

export type { ProjectRec, GroupRec } from './catalog.js';
export type { IssueRec } from './records.js';
