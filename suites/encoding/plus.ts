/**
 * `+` versus `%2B` in a query: an ISO 8601 offset sent as %2B is read as a plus, a bare `+` is a
 * space. The filter boundary is put one second before a real record, so reading the offset
 * differently (ignoring it, or reading `+` as a plus when it must be a space) moves the record.
 */
import * as fc from 'fast-check';
import { limits } from '../../spec/index.js';
import {
  apiHeaders,
  breaking,
  expectRows,
  reachedFixtureProject,
  jsonValue,
  projectPath,
  type Expect,
} from '../shared/api.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';

const pad = (n: number) => String(n).padStart(2, '0');

/** `instant` written in local time at a positive UTC offset, the `+` left to the caller. */
export function localTime(instantMs: number, offsetMinutes: number): { time: string; offset: string } {
  const local = new Date(instantMs + offsetMinutes * 60_000);
  const time = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  return { time, offset: `${pad(Math.floor(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}` };
}

function ids(res: HttpResponse): unknown[] | null {
  const body = jsonValue(res);
  return Array.isArray(body) ? body.map((i) => (i as Record<string, unknown>)?.id) : null;
}

/** Positive offsets only (a `+`), never zero: +00:00 read as a space could still mean UTC. */
const offsetMinutes = fc.tuple(fc.integer({ min: 1, max: 14 }), fc.constantFrom(0, 30, 45)).map(([h, m]) => h * 60 + m);

export const plusVersus2B: Check = {
  id: 'encoding.plus-versus-percent-2b',
  suite: 'encoding',
  needs: ['restApi'],
  title: 'a + in a query is sent as %2B (read as a plus); a bare + is read as a space',
  rules: ['ENC-PLUS-AS-2B', 'ERR-NO-SERVER-ERROR'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const expectPlus: Expect = breaking(t, 'ENC-PLUS-AS-2B');
    const issues = `${projectPath(await reachedFixtureProject(t))}/issues`;
    const listing = await t.http.get(issues, {
      headers,
      query: { order_by: 'created_at', sort: 'asc', per_page: limits().perPageMax, page: 1 },
    });
    expectPlus(listing.status === 200, `the fixture project's issues answered ${listing.status}, expected 200`, {
      status: listing.status,
    });
    const rows = expectRows(listing.json(), `the fixture project's issues`, expectPlus);
    if (rows.length === 0) t.skip('the fixture project has no issues to filter');
    // created_at and the created_after filter are the real service's; the source shows neither
    // (L73): without them the check has no instant to send, which is no fault of the provider.
    const records = rows.filter(
      (r): r is { id: unknown; created_at: string } =>
        typeof r.created_at === 'string' && !Number.isNaN(Date.parse(r.created_at)),
    );
    if (records.length === 0)
      t.skip("the fixture project's issues show no created_at (a field the source does not show)");
    const latest = Math.max(...records.map((r) => Date.parse(r.created_at)));
    const utc = new Date(Math.floor(latest / 1000) * 1000 - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const filtered = await t.http.get(`${issues}?order_by=created_at&sort=asc&per_page=1&page=1&created_after=${utc}`, {
      headers,
    });
    const first = (jsonValue(filtered) as Array<{ created_at?: unknown }> | null)?.[0]?.created_at;
    const firstAt = typeof first === 'string' ? Date.parse(first) : NaN;
    if (filtered.status !== 200 || !(firstAt >= latest - 1000))
      t.skip('the target does not filter issues by created_after (a parameter the source does not show)');
    await t.property(fc.nat({ max: records.length - 1 }), offsetMinutes, async (index, minutes) => {
      const record = records[index];
      // One second before the record, whole seconds: the record is (about) the first one created after it.
      const boundary = Math.floor(Date.parse(record.created_at) / 1000) * 1000 - 1000;
      const { time, offset } = localTime(boundary, minutes);
      const ask = (plus: string) =>
        t.http.get(`${issues}?order_by=created_at&sort=asc&per_page=1&page=1&created_after=${time}${plus}${offset}`, {
          headers,
        });
      const encoded = await ask('%2B');
      const value = `${time}+${offset}`;
      expectPlus(encoded.status === 200, `created_after=${time}%2B${offset} answered ${encoded.status}, expected 200`, {
        value,
        status: encoded.status,
      });
      // The first issue at or after the boundary (either, should one sit exactly on it: inclusive or not is not shown).
      const atOrAfter = records.find((r) => Date.parse(r.created_at) >= boundary)?.id;
      const after = records.find((r) => Date.parse(r.created_at) > boundary)?.id;
      const first = ids(encoded)?.[0];
      expectPlus(
        first === atOrAfter || first === after,
        `created_after=${time}%2B${offset} did not start at the first issue after ${value}: the %2B was not read as +`,
        {
          value,
          expectedFirst: after ?? null,
          gotFirst: first ?? null,
        },
      );
      const bare = await ask('+');
      // A bare + is a space: the value is then another timestamp or none at all, never the same instant.
      const sameAsPlus = bare.status === 200 && ids(bare)?.[0] === first;
      expectPlus(
        !sameAsPlus,
        `created_after=${time}+${offset} (bare +) was read like %2B: a bare + in a query must be read as a space`,
        { value, status: bare.status },
      );
      t.expect(
        bare.status < 500,
        `created_after with a bare + answered ${bare.status}: bad input must be a 4xx, never a 5xx`,
        { value, status: bare.status, rules: ['ERR-NO-SERVER-ERROR'] },
      );
    });
  },
};
