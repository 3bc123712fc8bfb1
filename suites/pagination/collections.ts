/**
 * The paginated collections of a target: every operation spec/openapi.yaml marks `x-paginated`,
 * with its path parameters filled from the target's fixtures.
 */
import { inRelease, operations, type OperationInfo } from '../../spec/index.js';
import type { CheckContext } from '../types.js';

/** The operation's path for this target, or the reason it cannot be formed (a fixture is missing). */
export function fillPath(t: CheckContext, op: OperationInfo): { path: string } | { missing: string } {
  const fixtures = t.config.fixtures ?? {};
  const values: Record<string, string | number | undefined> = {
    id: op.path.startsWith('/api/v4/groups/') ? fixtures.group : fixtures.project,
    package_id: fixtures.packageId,
    repository_id: fixtures.registryRepositoryId,
  };
  let missing: string | undefined;
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) missing ??= `target config names no fixture for {${name}} of ${op.path}`;
    return encodeURIComponent(String(value));
  });
  return missing ? { missing } : { path };
}

/** Paginated GET operations available at this run's release. */
export function paginatedOperations(t: CheckContext): OperationInfo[] {
  return operations().filter(
    (op) =>
      op.method === 'get' && (op.raw as Record<string, unknown>)['x-paginated'] === true && inRelease(op, t.release),
  );
}
