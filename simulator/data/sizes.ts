/**
 * How big the generated data is. These are the simulator's own design choices (not numbers of
 * the source): every count is a base times `seedSize`, chosen so that the default data already
 * exceeds the pagination-totals limit in one collection (the large project's issues), one
 * collection reaches a million records (instance audit events), and `--seed-size 21` or more
 * puts the users above the keyset-enforcement threshold.
 */
export const BASE = {
  users: 2_500,
  groups: 150,
  projects: 300,
  instanceAuditEvents: 1_000_000,
  largeProjectIssues: 12_000,
  fixtureIssues: 150,
  fixtureJobs: 1_500,
  fixtureProjectAuditEvents: 1_200,
  fixtureGroupAuditEvents: 3_000,
  fixturePackagePipelines: 1_100,
  fixtureRegistryTags: 1_300,
};

/** Id ranges: real (store or created) records never collide with generated ones. */
export const IDS = {
  /** generated users start here; store users count up from 1 */
  userBase: 100_000,
  /** generated groups and projects start here; fixtures sit below */
  generatedBase: 1_000,
  /** per-project collections: id = projectId * stride + position */
  stride: 100_000_000,
};

/** Generated timestamps fall inside this window (epoch ms), evenly by position, so they sort like ids. */
export const TIME = {
  start: Date.UTC(2021, 0, 1),
  span: Date.UTC(2025, 0, 1) - Date.UTC(2021, 0, 1),
};

export function spread(pos: number, count: number, from = TIME.start, span = TIME.span): number {
  return from + Math.floor(((pos + 1) * span) / (count + 1));
}
