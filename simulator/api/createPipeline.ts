/**
 * POST /api/v4/projects/:id/pipeline. `variables` is an array of hashes (variables[0][key]=K,
 * variables[][key]=K, or a JSON array of objects) and `inputs` a hash (inputs[name]=v or a JSON
 * object). The simulator echoes both in the response, so a client can see how they were read.
 */
import { apiError, json } from '../http.js';
import { IDS } from '../data/sizes.js';
import { API, endpoint } from './endpoint.js';
import { findProject } from './lookup.js';
import { ParamError, hash, hashes, readParams, str } from './params.js';
import { commitId, refExists } from './repository.js';

const VARIABLE_TYPES = ['env_var', 'file'];

export const createPipeline = endpoint(API, async (ctx, caller) => {
  const project = findProject(ctx, ctx.params.id, caller);
  const params = await readParams(ctx);
  const ref = str(params, 'ref');
  if (!ref) return apiError(400, 'ref is missing');
  if (!refExists(ref)) return apiError(400, `Reference not found: ${ref}`);
  const variables = (hashes(params, 'variables') ?? []).map((v, i) => {
    const key = v.key;
    if (typeof key !== 'string' || key === '') throw new ParamError(`variables[${i}][key] is missing`);
    const type = v.variable_type ?? 'env_var';
    if (typeof type !== 'string' || !VARIABLE_TYPES.includes(type))
      throw new ParamError(`variables[${i}][variable_type] does not have a valid value`);
    // A nested value (variables[0][value][x]=1) is stringified as before; the spec does not say otherwise.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    return { key, value: v.value === undefined || v.value === null ? '' : String(v.value), variable_type: type };
  });
  const inputs = hash(params, 'inputs') ?? {};
  const state = ctx.sim.state('api.pipelines', () => ({ next: 1 }));
  const iid = project.sizes.jobs + state.next++;
  return json(201, {
    id: project.id * IDS.stride + iid,
    iid,
    project_id: project.id,
    ref,
    sha: commitId(ctx, project, ref),
    status: 'created',
    source: 'api',
    created_at: new Date(ctx.sim.clock.now()).toISOString(),
    user: { id: caller!.user.id, username: caller!.user.username },
    variables,
    inputs,
  });
});
