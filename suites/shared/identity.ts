/**
 * Which record an answer is. The source shows no fields of projects or issues (L73): the real
 * service's `path_with_namespace` names a project where the answer carries it, else `id` ("unique
 * across all projects", L69) where both sides know it. When the answer shows neither, its identity
 * is not judged (undefined): the check holds only what the source lets it see.
 */
export function sameProject(body: Record<string, unknown> | undefined, want: { path?: string; id?: unknown }) {
  const path = body?.path_with_namespace;
  if (typeof path === 'string' && want.path !== undefined) return path === want.path;
  const id = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? String(v) : undefined);
  const [got, asked] = [id(body?.id), id(want.id)];
  return got !== undefined && asked !== undefined ? got === asked : undefined;
}
