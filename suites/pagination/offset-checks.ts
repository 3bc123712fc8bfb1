/**
 * Offset pagination checks. Must-level header and limit assertions and should-level row and
 * relation assertions are separate checks, so a report names exactly the broken sentence.
 */
import * as fc from 'fast-check';
import { limits, type RuleId } from '../../spec/index.js';
import { apiHeaders, breaking, instanceSetting, projectPath, reachProject, type Expect } from '../shared/api.js';
import { softOnce } from '../shared/rules.js';
import type { Check, CheckContext } from '../types.js';
import { carriesPaginationLink, numberHeader } from './links.js';
import {
  MAX_WALK_PAGES,
  effectivePerPage,
  headersMayBeOmitted,
  key,
  offsetCollections,
  learnedCollections,
  skipWhenPastLastRefused,
  walkOffset,
  type OffsetCollection,
  type OffsetWalk,
} from './offset.js';
import { expectKeepsParams, followLink, readPage, rel, type Page, type WalkRules } from './traverse.js';

function validPerPage(): fc.Arbitrary<number | undefined> {
  const { perPageMax } = limits();
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: perPageMax }), weight: 6 },
    { arbitrary: fc.integer({ min: perPageMax + 1, max: perPageMax * 10 }), weight: 2 },
  );
}

/**
 * The per_page values whose rules a short property run may not draw: none (the default) and one
 * above the maximum (capped). Run first, whatever the seed, so each of their rules is seen.
 */
async function alwaysAtPerPageEdges(walkAt: (perPage: number | undefined) => Promise<void>): Promise<void> {
  for (const perPage of [undefined, limits().perPageMax + 1]) await walkAt(perPage);
}

/** Values that are not a positive integer: zero, negatives, decimals, words, empty. */
const notPositiveInteger: fc.Arbitrary<string> = fc.oneof(
  fc.constant('0'),
  fc.integer({ min: -1000, max: -1 }).map(String),
  fc.tuple(fc.nat({ max: 50 }), fc.integer({ min: 1, max: 9 })).map(([a, b]) => `${a}.${b}`),
  fc.string({ unit: fc.constantFrom(...'abcxyz-_'), minLength: 1, maxLength: 6 }),
  fc.constant(''),
);

/** Collections are drawn by name, so a counterexample shows a name and never request headers. */
function collectionArb(collections: OffsetCollection[]): fc.Arbitrary<string> {
  return fc.constantFrom(...collections.map((c) => c.name));
}

function byName(collections: OffsetCollection[], name: string): OffsetCollection {
  return collections.find((c) => c.name === name)!;
}

function perPageQuery(perPage: number | string | undefined): Record<string, string | number> {
  return perPage === undefined ? {} : { per_page: perPage };
}

/**
 * Expect an offset header to equal `expected` (null = absent or empty); hosted may omit it. A
 * missing header breaks PAG-OFFSET-HEADERS; a wrong value breaks `rules` (what the value says).
 */
function expectHeader(
  t: CheckContext,
  page: Page,
  index: number,
  name: string,
  expected: number | null,
  what: string,
  rules: RuleId[],
  why = '',
): void {
  const raw = page.response.headers.get(name);
  if (raw === null && headersMayBeOmitted(t)) return;
  // Each header is its own sentence that nothing after it reads: said once, and the walk's other
  // headers and sizes are still judged (a wrong x-page must not hide a wrong x-total).
  if (expected !== null && raw === null) {
    softOnce(t, `${name} missing`, false, `${what}: page ${index} lacks the ${name} header`, {
      page: index,
      rules: ['PAG-OFFSET-HEADERS'],
    });
    return;
  }
  const actual = numberHeader(page.response, name);
  softOnce(
    t,
    name,
    Object.is(actual, expected),
    `${what}: page ${index} says ${name}: ${JSON.stringify(raw)}, expected ${expected ?? 'empty'}${why}`,
    {
      page: index,
      header: name,
      actual: raw,
      expected,
      rules,
    },
  );
}

/**
 * What serving another page size than asked breaks: the default when per_page was left out, the
 * cap when it was above the maximum, else the consistency of the page with its own headers.
 */
function perPageRules(requested: number | undefined): RuleId[] {
  if (requested === undefined) return ['PAG-PER-PAGE-DEFAULT', 'LIM-PER-PAGE'];
  return requested > limits().perPageMax ? ['PAG-PER-PAGE-MAX', 'LIM-PER-PAGE'] : ['PAG-OFFSET-HEADERS'];
}

/** Every Link of every page keeps the parameters the walk started with (PAG-LINK-FOLLOW). */
function assertLinksKeepParams(t: CheckContext, walk: OffsetWalk, kept: Record<string, string>, what: string): void {
  const expectKept: Expect = breaking(t, 'PAG-LINK-FOLLOW');
  const pages = walk.last ? [...walk.pages, walk.last] : walk.pages;
  pages.forEach((page, i) => {
    for (const [relation, urls] of Object.entries(page.links)) {
      for (const url of urls) {
        const params = new URL(url, page.response.url).searchParams;
        for (const [name, value] of Object.entries(kept)) {
          expectKept(
            params.get(name) === value,
            `${what}: rel=${relation} of page ${i + 1} drops the request's ${name}=${value}`,
            { relation, parameter: name, inLink: params.get(name) },
          );
        }
      }
    }
  });
}

/**
 * Header consistency of one walk: x-page, x-per-page, totals, prev/next numbers, Link present.
 * `perPage` is the size the server must apply, `requested` the per_page sent (if any).
 */
function assertOffsetHeaders(
  t: CheckContext,
  walk: OffsetWalk,
  perPage: number,
  requested: number | undefined,
  what: string,
): void {
  const sizeRules = perPageRules(requested);
  const headerRules: RuleId[] = ['PAG-OFFSET-HEADERS'];
  const first = walk.pages[0];
  const total = numberHeader(first.response, 'x-total');
  const seen = walk.pages.reduce((n, p) => n + p.items.length, 0);
  // Totals the headers must agree with: what was seen when the walk was whole.
  const expectedTotal = walk.complete ? seen : total;
  const totalPages = expectedTotal === null ? null : Math.max(1, Math.ceil(expectedTotal / perPage));
  // The page behind rel=last is numbered by the totals; where the hosted offering leaves them out
  // (L222), nothing says which page it is, so it is judged only by the walks that reach it.
  const pages =
    walk.last && totalPages !== null
      ? [...walk.pages.map((p, i) => [p, i + 1] as const), [walk.last, totalPages] as const]
      : walk.pages.map((p, i) => [p, i + 1] as const);
  for (const [page, index] of pages) {
    // The walk followed the Link: without it, what it saw is no ground for the other headers.
    t.expect(carriesPaginationLink(page.response), `${what}: page ${index} carries no Link header`, {
      page: index,
      rules: ['PAG-LINK-HEADER'],
    });
    expectHeader(t, page, index, 'x-page', index, what, index === 1 ? ['PAG-X-PAGE-STARTS-AT-1'] : headerRules);
    // A page past the last (reached through a rel=next the last page should not carry, which is
    // PAG-LINK-RELS', judged by offset-rows) holds nothing.
    const expectedSize =
      totalPages === null || index < totalPages
        ? perPage
        : index === totalPages
          ? (expectedTotal ?? 0) - (totalPages - 1) * perPage
          : 0;
    // x-per-page wrong over rows of the right size is the header's fault, not the size's.
    const xPerPageRules = page.items.length === expectedSize ? headerRules : sizeRules;
    expectHeader(t, page, index, 'x-per-page', perPage, what, xPerPageRules);
    const basis = walk.complete
      ? ` (rel=next led through ${seen} records)`
      : ` (x-total ${expectedTotal} at per_page ${perPage})`;
    // The last page of a walk that did not see every record is sized by x-total alone: a remainder
    // within per_page that disagrees with it says x-total is wrong (L221), not the page size (L212).
    const byTotal = !walk.complete && index === totalPages && page.items.length <= perPage;
    // Before the totals and page numbers, which are counted at this size: a wrong one stops here.
    t.expect(
      page.items.length === expectedSize,
      `${what}: page ${index} holds ${page.items.length} records, expected ${expectedSize} at per_page ${perPage}${byTotal ? basis : ''}`,
      {
        page: index,
        records: page.items.length,
        expected: expectedSize,
        rules: byTotal ? headerRules : sizeRules,
      },
    );
    expectHeader(t, page, index, 'x-total', expectedTotal, what, headerRules, basis);
    expectHeader(t, page, index, 'x-total-pages', totalPages, what, headerRules, basis);
    expectHeader(t, page, index, 'x-prev-page', index > 1 ? index - 1 : null, what, headerRules);
    if (totalPages !== null)
      expectHeader(t, page, index, 'x-next-page', index < totalPages ? index + 1 : null, what, headerRules);
  }
}

const offsetHeaders: Check = {
  id: 'pagination.offset-headers',
  suite: 'pagination',
  needs: ['restApi'],
  title:
    'offset pages carry consistent x-page, x-per-page, x-total, x-total-pages, x-prev-page, x-next-page and Link, for any per_page',
  rules: [
    'PAG-OFFSET-DEFAULT',
    'PAG-PAGE-DEFAULT',
    'PAG-PER-PAGE-DEFAULT',
    'PAG-PER-PAGE-MAX',
    'LIM-PER-PAGE',
    'PAG-LINK-HEADER',
    'PAG-LINK-FOLLOW',
    'PAG-LINKS-HEADER-REMOVED',
    'PAG-OFFSET-HEADERS',
    'PAG-X-PAGE-STARTS-AT-1',
  ],
  async run(t: CheckContext) {
    const collections = await offsetCollections(t);
    const walkAt = async (name: string, perPage: number | undefined) => {
      const collection = byName(collections, name);
      const effective = effectivePerPage(perPage);
      const what = `${collection.name} at per_page=${perPage ?? '(default)'}`;
      // The page asked without `page` against page=1, judged before the walk and its headers, whose
      // first hard failure (a link that leads elsewhere) would otherwise hide a wrong default page.
      const pageOf = async (page: Record<string, number>, label: string) =>
        readPage(
          t,
          await t.http.get(collection.path, {
            headers: collection.headers,
            query: { ...collection.query, ...perPageQuery(perPage), ...page },
          }),
          label,
          ['PAG-OFFSET-DEFAULT'],
        );
      const explicit = await pageOf({ page: 1 }, what);
      const implicit = await pageOf({}, `${what}, without page=`);
      const [implicitKeys, explicitKeys] = [implicit.items.map(key), explicit.items.map(key)];
      t.soft(
        implicitKeys.join('\n') === explicitKeys.join('\n'),
        `${what}: the page asked without page= is not the page page=1 answers`,
        { withoutPage: implicitKeys.slice(0, 5), page1: explicitKeys.slice(0, 5), rules: ['PAG-PAGE-DEFAULT'] },
      );
      // A first page refused means no offset pagination; a page behind a Link refused, a Link not to follow.
      // The walk starts at page=1 itself: a server whose default page is another one breaks
      // PAG-PAGE-DEFAULT alone, never the headers of what is in truth another page.
      const walk = await walkOffset(
        t,
        collection,
        { ...perPageQuery(perPage), page: 1 },
        { start: ['PAG-OFFSET-DEFAULT'], follow: ['PAG-LINK-FOLLOW'] },
      );
      assertOffsetHeaders(t, walk, effective, perPage, what);
      assertLinksKeepParams(t, walk, collection.query, what);
    };
    await alwaysAtPerPageEdges((perPage) => walkAt(collections[0].name, perPage));
    await t.property(collectionArb(collections), validPerPage(), walkAt);
  },
};

/** Items of a page against the reference slice they must be. */
function expectSlice(
  t: CheckContext,
  page: Page,
  index: number,
  reference: string[],
  perPage: number,
  what: string,
  rules: RuleId[],
): void {
  const expected = reference.slice((index - 1) * perPage, index * perPage);
  const actual = page.items.map(key);
  const at = actual.findIndex((k, i) => k !== expected[i]);
  t.expect(
    at < 0 && actual.length === expected.length,
    `${what}: page ${index} does not hold records ${(index - 1) * perPage + 1}..${(index - 1) * perPage + expected.length} of the collection in order`,
    {
      page: index,
      firstDifferenceAt: at < 0 ? Math.min(actual.length, expected.length) : at,
      got: actual[at < 0 ? Math.min(actual.length, expected.length) : at] ?? null,
      expected: expected[at < 0 ? Math.min(actual.length, expected.length) : at] ?? null,
      rules,
    },
  );
}

/**
 * Rows and relations of one walk. `rowRules` are what wrong rows break: PAG-OFFSET-ROWS, and
 * PAG-INVALID-PARAMS too when the per_page sent was invalid (its default then sets the slices).
 */
async function assertRowsAndRelations(
  t: CheckContext,
  collection: OffsetCollection,
  walk: OffsetWalk,
  reference: string[],
  perPage: number,
  what: string,
  rowRules: RuleId[],
): Promise<void> {
  const expectRels: Expect = breaking(t, 'PAG-LINK-RELS');
  const relRules: RuleId[] = ['PAG-LINK-RELS'];
  const totalPages = Math.max(1, Math.ceil(reference.length / perPage));
  walk.pages.forEach((page, i) => {
    const index = i + 1;
    // The relations live in the Link header: without it there are none to judge, and the walk
    // could not go on (PAG-LINK-HEADER, judged here as the premise).
    t.expect(
      carriesPaginationLink(page.response),
      `${what}: page ${index} carries no Link header, so there is no relation to follow or judge`,
      { page: index, rules: ['PAG-LINK-HEADER'] },
    );
    expectSlice(t, page, index, reference, perPage, what, rowRules);
    expectRels(
      (rel(t, page, 'prev') !== undefined) === index > 1,
      `${what}: page ${index} ${index > 1 ? 'lacks' : 'has'} rel=prev`,
      { page: index },
    );
    expectRels(
      (rel(t, page, 'next') !== undefined) === index < totalPages,
      `${what}: page ${index} of ${totalPages} ${index < totalPages ? 'lacks' : 'has'} rel=next`,
      { page: index },
    );
    expectRels(rel(t, page, 'first') !== undefined, `${what}: page ${index} lacks rel=first`, { page: index });
    // The hosted offering may omit pagination headers, rel=last among them (it needs the total).
    if (!headersMayBeOmitted(t))
      expectRels(
        rel(t, page, 'last') !== undefined,
        `${what}: page ${index} lacks rel=last (the collection is below the totals limit)`,
        { page: index },
      );
  });
  if (walk.complete) {
    t.expect(
      walk.pages.length === totalPages,
      `${what}: rel=next visited ${walk.pages.length} pages, the collection fills ${totalPages}`,
      { pages: walk.pages.length, totalPages, rules: rowRules },
    );
  } else if (walk.last || !headersMayBeOmitted(t)) {
    expectRels(
      walk.last,
      `${what}: the walk stopped after ${MAX_WALK_PAGES} pages and page 1 has no rel=last to jump to`,
    );
    expectSlice(t, walk.last, totalPages, reference, perPage, `${what} (rel=last)`, relRules);
    expectRels(rel(t, walk.last, 'next') === undefined, `${what}: the page behind rel=last has rel=next`);
  }
  // rel=first and rel=prev of the last page reached lead where they say.
  const lastReached = walk.pages[walk.pages.length - 1];
  const firstUrl = rel(t, lastReached, 'first')!;
  const request = walk.pages[0].response.url;
  expectKeepsParams(t, firstUrl, request, `${what}: rel=first`);
  expectSlice(
    t,
    readPage(t, await followLink(t, firstUrl, `${what}: rel=first`, collection.headers), 'rel=first', relRules),
    1,
    reference,
    perPage,
    `${what} (rel=first)`,
    relRules,
  );
  const prevUrl = rel(t, lastReached, 'prev');
  if (prevUrl !== undefined) {
    expectKeepsParams(t, prevUrl, request, `${what}: rel=prev`);
    const index = walk.pages.length - 1;
    expectSlice(
      t,
      readPage(t, await followLink(t, prevUrl, `${what}: rel=prev`, collection.headers), 'rel=prev', relRules),
      index,
      reference,
      perPage,
      `${what} (rel=prev)`,
      relRules,
    );
  }
}

const offsetRows: Check = {
  id: 'pagination.offset-rows',
  suite: 'pagination',
  needs: ['restApi'],
  title:
    'following rel=next from the first page visits every record once, in order; prev/next/first/last where they belong',
  rules: ['PAG-OFFSET-ROWS', 'PAG-LINK-RELS', 'PAG-INVALID-PARAMS'],
  async run(t: CheckContext) {
    const learned = await learnedCollections(t, await offsetCollections(t));
    const perPageArb = fc.oneof({ arbitrary: validPerPage(), weight: 3 }, { arbitrary: notPositiveInteger, weight: 1 });
    const walkAt = async (name: string, perPage: number | string | undefined) => {
      const { collection, reference } = learned.find((l) => l.collection.name === name)!;
      const invalid = typeof perPage === 'string';
      let effective = invalid ? limits().perPageDefault : effectivePerPage(perPage);
      const rowRules: RuleId[] = invalid ? ['PAG-OFFSET-ROWS', 'PAG-INVALID-PARAMS'] : ['PAG-OFFSET-ROWS'];
      const walkRules: WalkRules = {
        start: invalid ? ['PAG-INVALID-PARAMS'] : ['PAG-OFFSET-ROWS'],
        follow: ['PAG-OFFSET-ROWS'],
      };
      // From page=1 itself: what a missing page means is PAG-PAGE-DEFAULT's, judged in offset-headers.
      const walk = await walkOffset(t, collection, { ...perPageQuery(perPage), page: 1 }, walkRules);
      // A per_page above the maximum served uncapped breaks the cap (PAG-PER-PAGE-MAX, judged by
      // offset-headers); the partition is then judged at the size served, as asked.
      if (typeof perPage === 'number' && walk.pages[0].items.length > effective) effective = perPage;
      // So is a cap below the maximum (Gitea's and Forgejo's 50), declared by x-per-page and served
      // so: the size is the cap's sentence (offset-headers judges it), the rows are judged at that size.
      const declared = numberHeader(walk.pages[0].response, 'x-per-page');
      if (
        typeof perPage === 'number' &&
        declared !== null &&
        declared < effective &&
        walk.pages[0].items.length === declared
      )
        effective = declared;
      await assertRowsAndRelations(
        t,
        collection,
        walk,
        reference,
        effective,
        `${collection.name} at per_page=${JSON.stringify(perPage ?? '(default)')}`,
        rowRules,
      );
    };
    // An invalid per_page every run, whatever the draw: its rule is seen even in a short run.
    await walkAt(learned[0].collection.name, '0');
    await t.property(fc.constantFrom(...learned.map((l) => l.collection.name)), perPageArb, walkAt);
  },
};

const invalidParams: Check = {
  id: 'pagination.invalid-params-default',
  suite: 'pagination',
  needs: ['restApi'],
  title: 'a page or per_page that is not a positive integer falls back to its default',
  rules: ['PAG-INVALID-PARAMS'],
  async run(t: CheckContext) {
    const [{ collection, reference }] = await learnedCollections(t, await offsetCollections(t), 1);
    const { perPageDefault } = limits();
    const rules: RuleId[] = ['PAG-INVALID-PARAMS'];
    // A fallback is judged against what page=1 itself answers: how x-page numbers the first page
    // is PAG-X-PAGE-STARTS-AT-1's, judged by pagination.offset-headers.
    const pageOne = await t.http.get(collection.path, {
      headers: collection.headers,
      query: { ...collection.query, page: 1, per_page: perPageDefault },
    });
    const xPageOfPageOne = numberHeader(pageOne, 'x-page') ?? 1;
    // At least one of the two invalid; the other (undefined in a draw) is sent valid and explicit,
    // page=1 or per_page=default, so a wrong answer is the invalid value's doing, not a default's.
    const invalidPair = fc.oneof(
      fc.tuple(notPositiveInteger, fc.option(notPositiveInteger, { nil: undefined })),
      fc.tuple(fc.constant(undefined), notPositiveInteger),
    );
    await t.property(invalidPair, async ([page, perPage]) => {
      const query: Record<string, string> = { page: page ?? '1', per_page: perPage ?? String(perPageDefault) };
      const what = `${collection.name} with ${JSON.stringify(query)}`;
      const res = await t.http.get(collection.path, {
        headers: collection.headers,
        query: { ...collection.query, ...query },
      });
      t.expect(
        res.status === 200,
        `${what} answered ${res.status}: invalid pagination parameters must fall back to their defaults`,
        { query, status: res.status },
      );
      const first = readPage(t, res, what, rules);
      expectHeader(t, first, 1, 'x-page', xPageOfPageOne, what, rules, ' (what page=1 says)');
      expectHeader(t, first, 1, 'x-per-page', perPageDefault, what, rules);
      expectSlice(t, first, 1, reference, perPageDefault, what, rules);
    });
  },
};

const totalsOmitted: Check = {
  id: 'pagination.totals-omitted-above-limit',
  suite: 'pagination',
  needs: ['restApi'],
  title:
    'above 10,000 records x-total, x-total-pages and rel=last are omitted; rel=next and the page numbers still lead on',
  rules: [
    'PAG-TOTALS-OMITTED',
    'PAG-X-PAGE-STARTS-AT-1',
    'PAG-LINK-RELS',
    'PAG-PER-PAGE-DEFAULT',
    'PAG-PER-PAGE-MAX',
    'PAG-OFFSET-HEADERS',
    'LIM-PER-PAGE',
  ],
  async run(t: CheckContext) {
    const large = t.config.fixtures?.largeProject;
    if (!large) t.skip('target config names no fixtures.largeProject');
    const collection: OffsetCollection = {
      name: 'issues of the large project',
      path: `${projectPath(await reachProject(t, large))}/issues`,
      query: {},
      headers: await apiHeaders(t),
    };
    const { paginationTotalsMax } = limits();
    const rules: RuleId[] = ['PAG-TOTALS-OMITTED'];
    const walkAt = async (perPage: number | undefined) => {
      const effective = effectivePerPage(perPage);
      // From page=1 itself, as offset-headers walks: a default page that is another one is
      // PAG-PAGE-DEFAULT's alone, never the page numbers of what is in truth another page.
      const walk = await walkOffset(
        t,
        collection,
        { ...perPageQuery(perPage), page: 1 },
        { start: rules, follow: rules },
        2,
      );
      const what = `${collection.name} (more than ${paginationTotalsMax} records) at per_page=${perPage ?? '(default)'}`;
      walk.pages.forEach((page, i) => {
        for (const name of ['x-total', 'x-total-pages']) {
          t.expect(page.response.headers.get(name) === null, `${what}: page ${i + 1} carries ${name}`, {
            page: i + 1,
            header: name,
            rules,
          });
        }
        t.expect(rel(t, page, 'last') === undefined, `${what}: page ${i + 1} carries rel=last`, { page: i + 1, rules });
        // Only the totals go: the page numbers still hold (PAG-OFFSET-HEADERS), and with more than
        // paginationTotalsMax records every page walked here has a next one.
        const index = i + 1;
        const numbers: RuleId[] = ['PAG-OFFSET-HEADERS'];
        expectHeader(t, page, index, 'x-page', index, what, index === 1 ? ['PAG-X-PAGE-STARTS-AT-1'] : numbers);
        expectHeader(t, page, index, 'x-prev-page', index > 1 ? index - 1 : null, what, numbers);
        expectHeader(t, page, index, 'x-next-page', index + 1, what, numbers);
        // What the source says of totals is the absence above; the rest is other rules' (softly).
        // A missing rel=next is PAG-LINK-RELS' only where there is a Link header at all.
        const linked = t.soft(carriesPaginationLink(page.response), `${what}: page ${i + 1} carries no Link header`, {
          page: i + 1,
          rules: ['PAG-LINK-HEADER'],
        });
        if (linked)
          t.soft(rel(t, page, 'next') !== undefined, `${what}: page ${i + 1} lacks rel=next`, {
            page: i + 1,
            rules: ['PAG-LINK-RELS'],
          });
        t.soft(
          page.items.length === effective,
          `${what}: page ${i + 1} holds ${page.items.length} records, expected ${effective}`,
          { page: i + 1, rules: perPageRules(perPage) },
        );
      });
    };
    await alwaysAtPerPageEdges(walkAt);
    await t.property(validPerPage(), walkAt);
  },
};

const maxOffset: Check = {
  id: 'pagination.max-offset',
  suite: 'pagination',
  title: 'offset pagination refuses an offset beyond the maximum-offset setting (400), and serves up to it',
  rules: ['PAG-MAX-OFFSET', 'PAG-MAX-OFFSET-400'],
  // The setting's value is not shown on a live deployment; only the simulator's is known.
  needs: ['control', 'restApi'],
  async run(t: CheckContext) {
    // Not /users: from 17.0 its own offset limit (PAG-USERS-KEYSET-ENFORCED) refuses first.
    const collection = (await offsetCollections(t)).find((c) => c.name !== 'listUsers');
    if (!collection) t.skip('the only offset collection this target serves is /users, which has its own offset limit');
    const limit = await instanceSetting(t, 'max_offset', 'maxOffset');
    const { perPageMax } = limits();
    await t.property(fc.integer({ min: 1, max: perPageMax }), async (perPage) => {
      // The last page whose offset ((page - 1) * per_page) is within the limit, and the one after it.
      const lastPage = Math.floor(limit / perPage) + 1;
      const within = await t.http.get(collection.path, {
        headers: collection.headers,
        query: { ...collection.query, per_page: perPage, page: lastPage },
      });
      if (within.status >= 400 && within.status < 500)
        await skipWhenPastLastRefused(t, { ...collection, perPage }, limit, collection.name);
      t.expect(
        within.status === 200,
        `page ${lastPage} at per_page ${perPage} (offset ${(lastPage - 1) * perPage}, limit ${limit}) answered ${within.status}, expected 200`,
        { status: within.status, rules: ['PAG-MAX-OFFSET'] },
      );
      const beyond = await t.http.get(collection.path, {
        headers: collection.headers,
        query: { ...collection.query, per_page: perPage, page: lastPage + 1 },
      });
      // The source says the maximum exists: beyond it nothing is served. Which 4xx is documented behaviour.
      const where = `page ${lastPage + 1} at per_page ${perPage} (offset ${lastPage * perPage}, beyond ${limit})`;
      t.expect(
        beyond.status >= 400 && beyond.status < 500,
        `${where} answered ${beyond.status}, expected a refusal (4xx)`,
        { status: beyond.status, rules: ['PAG-MAX-OFFSET'] },
      );
      t.soft(beyond.status === 400, `${where} answered ${beyond.status}, expected 400`, {
        status: beyond.status,
        rules: ['PAG-MAX-OFFSET-400'],
      });
    });
  },
};

export const offsetChecks: Check[] = [offsetHeaders, offsetRows, invalidParams, totalsOmitted, maxOffset];
