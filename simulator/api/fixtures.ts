/** The data the checks may rely on (the target config's `fixtures`), as the simulator seeds it. */
import type { Fixtures } from '../../spec/target-config.js';
import { dataset } from '../data/index.js';
import { BRANCHES, TAGS } from '../data/tree.js';
import type { Sim } from '../types.js';

export function apiFixtures(sim: Sim): Fixtures {
  const { catalog, records } = dataset(sim);
  const { project, largeProject, movedProject, movedFrom, group } = catalog.fixtures;
  return {
    project: project.pathWithNamespace,
    movedProject: { oldPath: movedFrom, newPath: movedProject.pathWithNamespace },
    largeProject: largeProject.pathWithNamespace,
    group: group.fullPath,
    registryRepositoryId: records.registryRepositoryId(project),
    packageId: records.packages(project).at(0).id,
    slashedBranch: BRANCHES.find((b) => b.includes('/')),
    slashedTag: TAGS.find((t) => t.includes('/')),
  };
}
