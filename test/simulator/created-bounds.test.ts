/**
 * What a client creates is bounded (LIM-CREATED-RECORDS-BOUNDED, review 25 finding 3): every route
 * that adds a record a client (not the control API) asks for refuses a field past its length and a
 * record past its count, in its own error shape, and stores nothing then; the applications page
 * lists a bounded page. Records are counted in the store or through the API, never by memory.
 */
import fc from 'fast-check';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { limits } from '../../spec/index.js';
import { toNodeListener } from '../../simulator/adapters/node.js';
import { createSimulator } from '../../simulator/core.js';
import { dataset } from '../../simulator/data/index.js';
import { createApplication, seeded } from '../../simulator/oauth/accounts.js';
import { formFields, signIn, type Agent } from './oauth/helpers.js';

const L = limits();
const SEED = Number(process.env.FC_SEED ?? 20261127);
const PAGE = '/user_settings/applications';
const ISSUES = '/api/v4/projects/1/issues';
const ROLES = '/api/v4/member_roles';

const sim = createSimulator({ clock: { frozen: true } });
const listener = toNodeListener(sim);
const http = () => request(listener);
const { admin, user, personalAccessToken } = seeded(sim);
/** Two browsers: root's and the developer's, each signed in. */
const browser = request.agent(listener);
await signIn(browser, admin.username, admin.password);
const developer = request.agent(listener);
await signIn(developer, user.username, user.password);
const pat = { 'private-token': personalAccessToken };

const createdIssues = () => [...dataset(sim).createdIssues.values()].reduce((n, list) => n + list.length, 0);
const memberRoles = async () => Number((await http().get(`${ROLES}?per_page=1`).set(pat)).headers['x-total']);

async function registerAs(who: Agent, fields: Record<string, string | string[]>) {
  const csrf = formFields((await who.get(PAGE)).text, 'new-application');
  const form = new URLSearchParams(Object.entries(csrf));
  const all = { 'application[redirect_uri]': 'https://app.test/cb', 'application[scopes][]': 'api', ...fields };
  for (const [name, value] of Object.entries(all)) for (const v of [value].flat()) form.append(name, v);
  return who.post(PAGE).type('form').send(form.toString());
}

interface Route {
  name: string;
  count: () => number | Promise<number>;
  /** A creation whose `field` is `value` (the other fields valid). */
  create: (field: string, value: string | string[]) => Promise<{ status: number; text: string }>;
  /** The refusal of a record past a bound: its status and its message's place. */
  refused: { status: number; message: (text: string) => string | undefined };
  fields: Record<string, { limit: number; many?: boolean }>;
}

const apiMessage = (text: string) => (JSON.parse(text) as { message?: string }).message;
const pageMessage = (text: string) => /<p id="error" role="alert">([^<]*)<\/p>/.exec(text)?.[1];

const ROUTES: Route[] = [
  {
    name: 'the applications page',
    count: () => sim.store.applications.size,
    create: (field, value) =>
      registerAs(browser, {
        'application[name]': 'app',
        [field === 'name' ? 'application[name]' : 'application[redirect_uri]']:
          field === 'redirect URIs' ? [value].flat().join('\n') : value,
      }),
    refused: { status: 422, message: pageMessage },
    fields: {
      name: { limit: L.nameMaxLength },
      'redirect URI': { limit: L.redirectUriMaxLength },
      'redirect URIs': { limit: L.redirectUrisMax, many: true },
    },
  },
  {
    name: 'POST /projects/:id/issues',
    count: createdIssues,
    create: (field, value) =>
      http()
        .post(ISSUES)
        .set(pat)
        .send({ title: 'issue', [field]: value }),
    refused: { status: 400, message: apiMessage },
    fields: {
      title: { limit: L.nameMaxLength },
      description: { limit: L.descriptionMaxLength },
      labels: { limit: L.issueLabelsMax, many: true },
      label: { limit: L.nameMaxLength },
    },
  },
  {
    name: 'POST /member_roles',
    count: memberRoles,
    create: (field, value) =>
      http()
        .post(ROLES)
        .set(pat)
        .send({ name: 'role', base_access_level: 10, [field]: value }),
    refused: { status: 400, message: apiMessage },
    fields: { name: { limit: L.nameMaxLength }, description: { limit: L.descriptionMaxLength } },
  },
];

/** A field's value of `size` (characters, or items of a list), valid otherwise. */
function valueOf(field: string, size: number): string | string[] {
  if (field === 'redirect URI') return `https://app.test/${'p'.repeat(size - 'https://app.test/'.length)}`;
  if (field === 'redirect URIs') return Array.from({ length: size }, (_, i) => `https://app.test/${i}`);
  if (field === 'labels') return Array.from({ length: size }, (_, i) => `l${i}`);
  // Characters, not UTF-16 units: a name of astral characters is as long as it looks.
  return Array.from({ length: size }, (_, i) => CHARACTERS[i % CHARACTERS.length]).join('');
}
const CHARACTERS = ['é', '😀', 'x'];

function send(route: Route, field: string, size: number) {
  if (field === 'label') return route.create('labels', [valueOf(field, size) as string]);
  return route.create(field, valueOf(field, size));
}

const rows = ROUTES.flatMap((route) => Object.entries(route.fields).map(([field, f]) => ({ route, field, ...f })));

describe('every creating route bounds its fields (table)', () => {
  it.each(rows.map((r) => [r.route.name, r.field, r] as const))(
    '%s: %s',
    async (_route, field, { route, limit, many }) => {
      const before = await route.count();
      const at = await send(route, field, limit);
      expect(at.status, at.text.slice(0, 300)).toBe(201);
      expect(await route.count()).toBe(before + 1);
      const over = await send(route, field, limit + 1);
      expect(over.status).toBe(route.refused.status);
      expect(route.refused.message(over.text)).toMatch(
        many ? new RegExp(`at most ${limit}`) : new RegExp(`too long \\(maximum is ${limit} characters\\)`),
      );
      expect(await route.count()).toBe(before + 1);
    },
  );
});

describe('lengths around each bound (property, fixed seed)', () => {
  it('a field is stored exactly when it is within its bound', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...rows),
        fc.integer({ min: -3, max: 3 }),
        async ({ route, field, limit }, delta) => {
          const before = await route.count();
          const res = await send(route, field, limit + delta);
          const kept = delta <= 0;
          expect(res.status).toBe(kept ? 201 : route.refused.status);
          expect(await route.count()).toBe(before + (kept ? 1 : 0));
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });
});

describe('counts are capped per owner, per project and per instance', () => {
  it('a user registers at most applicationsPerOwnerMax applications on the page; another user still can', async () => {
    const owned = () => [...sim.store.applications.values()].filter((a) => a.ownerId === admin.id).length;
    // Filled through the control API's path (no page): it counts toward the owner's bound too.
    for (let n = owned(); n < L.applicationsPerOwnerMax; n++)
      createApplication(sim, {
        name: `filler ${n}`,
        redirectUris: ['https://app.test/cb'],
        scopes: ['api'],
        ownerId: admin.id,
      });
    const before = sim.store.applications.size;
    const res = await registerAs(browser, { 'application[name]': 'one too many' });
    expect(res.status).toBe(422);
    expect(pageMessage(res.text)).toBe(`Maximum number of applications (${L.applicationsPerOwnerMax}) exceeded`);
    expect(sim.store.applications.size).toBe(before);
    expect(owned()).toBe(L.applicationsPerOwnerMax);
    // The developer's own count is far from the bound.
    const second = await registerAs(developer, { 'application[name]': 'the developer’s' });
    expect(second.status).toBe(201);
    expect(sim.store.applications.size).toBe(before + 1);
  });

  it('the applications page lists applicationsPageSize a page, every one once over the pages', async () => {
    const mine = [...sim.store.applications.values()].filter((a) => a.ownerId === admin.id).map((a) => a.uid);
    expect(mine.length).toBeGreaterThan(L.applicationsPageSize * 3);
    const seen: string[] = [];
    let path: string | undefined = PAGE;
    for (let pages = 0; path && pages < mine.length; pages++) {
      const res = await browser.get(path);
      expect(res.status).toBe(200);
      const uids = [...res.text.matchAll(/<td><code>([0-9a-f]{64})<\/code><\/td>/g)].map((m) => m[1]);
      expect(uids.length).toBeLessThanOrEqual(L.applicationsPageSize);
      expect(uids.length).toBeGreaterThan(0);
      seen.push(...uids);
      path = /<a rel="next" href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&');
    }
    expect(seen.sort()).toEqual(mine.sort());
    // Past the last page: the last page, not an empty one or an error.
    const far = await browser.get(`${PAGE}?page=999999`);
    expect(far.status).toBe(200);
    expect(far.text).not.toMatch(/<a rel="next"/);
    for (const odd of ['0', '-1', 'x', '1e3', '9'.repeat(400)])
      expect((await browser.get(`${PAGE}?page=${odd}`)).status).toBe(200);
  });

  it('a project takes createdIssuesPerProjectMax created issues, the instance createdIssuesMax', async () => {
    const data = dataset(sim);
    const issue = { title: 'filled' };
    /** One issue made through the API at `path`, then copies of it until the project holds n. */
    const fill = async (path: string, n: number) => {
      const made = await http().post(path).set(pat).send(issue);
      expect(made.status).toBe(201);
      const list = data.createdIssues.get(made.body.project_id as number)!;
      while (list.length < n) list.push(list.at(-1)!);
    };
    await fill(ISSUES, L.createdIssuesPerProjectMax);
    const before = createdIssues();
    const full = await http().post(ISSUES).set(pat).send(issue);
    expect(full.status).toBe(400);
    expect(full.body).toEqual({
      message: `Maximum number of issues created in a project (${L.createdIssuesPerProjectMax}) exceeded`,
    });
    expect(createdIssues()).toBe(before);

    // Other projects have room until the instance's bound.
    let id = 2;
    for (; createdIssues() < L.createdIssuesMax; id++)
      await fill(
        `/api/v4/projects/${id}/issues`,
        Math.min(L.createdIssuesPerProjectMax, L.createdIssuesMax - createdIssues()),
      );
    expect(createdIssues()).toBe(L.createdIssuesMax);
    const other = `/api/v4/projects/${id}/issues`;
    const instanceFull = await http().post(other).set(pat).send(issue);
    expect(instanceFull.status).toBe(400);
    expect(instanceFull.body).toEqual({ message: `Maximum number of created issues (${L.createdIssuesMax}) exceeded` });
    expect(createdIssues()).toBe(L.createdIssuesMax);
  });

  it('the instance holds at most memberRolesMax member roles; deleting one makes room', async () => {
    for (let n = await memberRoles(); n < L.memberRolesMax; n++)
      expect(
        (
          await http()
            .post(ROLES)
            .set(pat)
            .send({ name: `r${n}`, base_access_level: 10 })
        ).status,
      ).toBe(201);
    const full = await http().post(ROLES).set(pat).send({ name: 'one too many', base_access_level: 10 });
    expect(full.status).toBe(400);
    expect(full.body).toEqual({ message: `Maximum number of member roles (${L.memberRolesMax}) exceeded` });
    expect(await memberRoles()).toBe(L.memberRolesMax);
    const some = (await http().get(`${ROLES}?per_page=1`).set(pat)).body[0].id;
    expect((await http().delete(`${ROLES}/${some}`).set(pat)).status).toBe(204);
    expect((await http().post(ROLES).set(pat).send({ name: 'room again', base_access_level: 10 })).status).toBe(201);
  });
});
