/** GET/POST /api/v4/member_roles and DELETE /api/v4/member_roles/:id: instance custom roles (administrators). */
import { firstProblem, full, tooLong } from '../bounds.js';
import { apiError, json, type Answer, Reply } from '../http.js';
import type { Ctx, Handler } from '../types.js';
import type { Caller } from './auth.js';
import { API, endpoint } from './endpoint.js';
import { bool, readParams, str } from './params.js';
import { idOrdering, paginate } from './pagination.js';
import { fromArray } from '../data/seq.js';

const BASE_ACCESS_LEVELS = [10, 15, 20, 30, 40];

interface MemberRole {
  id: number;
  name: string;
  description: string;
  base_access_level: number;
  read_code: boolean;
}

function roles(ctx: Ctx): { next: number; all: Map<number, MemberRole> } {
  return ctx.sim.state('api.memberRoles', () => ({ next: 1, all: new Map<number, MemberRole>() }));
}

function adminOnly(run: (ctx: Ctx, caller: Caller) => Answer | Promise<Answer>): Handler {
  return endpoint(API, (ctx, caller) => (caller?.user.admin ? run(ctx, caller) : apiError(403, '403 Forbidden')));
}

// Offset pagination is the default on every list endpoint, this one included.
export const listMemberRoles = adminOnly((ctx) =>
  paginate(
    ctx,
    {
      orderings: { id: idOrdering(fromArray([...roles(ctx).all.values()]), (r) => r.id) },
      defaultOrder: { orderBy: 'id', sort: 'asc' },
      render: (r) => r,
    },
    true,
  ),
);

export const createMemberRole = adminOnly(async (ctx) => {
  const params = await readParams(ctx);
  const name = str(params, 'name');
  const level = Number(str(params, 'base_access_level'));
  const description = str(params, 'description') ?? '';
  if (!name) return apiError(400, 'name is missing');
  if (!BASE_ACCESS_LEVELS.includes(level))
    return apiError(400, `base_access_level does not have a valid value (one of ${BASE_ACCESS_LEVELS.join(', ')})`);
  const state = roles(ctx);
  const refused = firstProblem(
    tooLong('name', name, 'nameMaxLength'),
    tooLong('description', description, 'descriptionMaxLength'),
    full('member roles', state.all.size, 'memberRolesMax'),
  );
  if (refused) return apiError(400, refused);
  const role = {
    id: state.next++,
    name,
    description,
    base_access_level: level,
    read_code: bool(params, 'read_code') ?? false,
  };
  state.all.set(role.id, role);
  return json(201, role);
});

export const deleteMemberRole = adminOnly((ctx) => {
  const state = roles(ctx);
  const id = Number(ctx.params.id);
  if (ctx.sim.fault('member-role-delete-ignored')) return new Response(null, { status: 204 });
  if (!state.all.delete(id)) return apiError(404, '404 Member Role Not Found');
  return new Reply(204, null);
});
