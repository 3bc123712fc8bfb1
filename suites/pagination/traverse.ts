/**
 * Walking a paginated collection the way the source tells clients to: request the first page,
 * then only ever follow the server's `rel=next` link (t.http.follow), never a URL of our own.
 */
import type { RuleId } from '../../spec/index.js';
import type { CheckContext, HttpResponse } from '../types.js';
import { paginationOnly, parseLinkHeader, resolveLink, urlKey, type Links } from './links.js';
import { expectRows, integerId } from '../shared/json.js';
import { softOnce } from '../shared/rules.js';

export interface Page {
  response: HttpResponse;
  items: Record<string, unknown>[];
  links: Links;
}

/**
 * Read one page: 200, a JSON array, a well-formed `Link`, and never the removed `Links` header.
 * `rules` are what a page that is not a 200 JSON array breaks, which depends on how it was reached.
 */
export function readPage(t: CheckContext, response: HttpResponse, what: string, rules: RuleId[]): Page {
  t.expect(response.status === 200, `${what} answered ${response.status}, expected 200`, {
    url: redact(response.url),
    status: response.status,
    body: response.text.slice(0, 300),
    rules,
  });
  // Every reader of a page takes its rows for records: a null or a list among them is said here.
  const items = expectRows(response.json(), what, (ok, message, details) => t.expect(ok, message, details), {
    url: redact(response.url),
    rules,
  });
  // Nothing reads Links: its presence is said once and hides no other sentence.
  softOnce(
    t,
    'links-header',
    response.headers.get('links') === null,
    `${what} carries the removed \`Links\` header (only \`Link\` exists)`,
    {
      url: redact(response.url),
      links: response.headers.get('links'),
      rules: ['PAG-LINKS-HEADER-REMOVED'],
    },
  );
  const parsed = parseLinkHeader(response.headers.get('link'));
  t.expect(parsed !== null, `${what} has a malformed Link header`, {
    url: redact(response.url),
    link: response.headers.get('link'),
    rules: ['PAG-LINK-HEADER'],
  });
  // Relative references are resolved against this response's URL (RFC 8288 §3.2); links of other
  // relations than pagination's are not the page's to judge.
  const links: Links = {};
  for (const [relation, urls] of Object.entries(paginationOnly(parsed)!))
    links[relation] = urls.map((u) => resolveLink(u, response.url));
  // A target that is no URL reference is a malformed Link: said here, not thrown by whoever reads it.
  const broken = Object.entries(links).find(([, urls]) => urls.some((u) => !URL.canParse(u)));
  t.expect(!broken, `${what} has a Link whose rel=${broken?.[0]} target is not a URL`, {
    url: redact(response.url),
    link: response.headers.get('link'),
    rules: ['PAG-LINK-HEADER'],
  });
  return { response, items, links };
}

/**
 * The URL of a relation, failing when the header names it twice with different targets (the
 * same target repeated, as a proxy joining fields may write it, is one link).
 */
export function rel(t: CheckContext, page: Page, name: string): string | undefined {
  const urls = page.links[name];
  const targets = new Set(urls?.map(urlKey));
  t.expect(targets.size <= 1, `Link header names rel=${name} ${urls?.length} times, leading to different pages`, {
    url: redact(page.response.url),
    links: urls?.map(redact),
    rules: ['PAG-LINK-HEADER'],
  });
  return urls?.[0];
}

/**
 * What a broken walk breaks: `start` when the first page is not a 200 JSON array, `follow` when a
 * page reached through rel=next is not one or rel=next leads back to a page already visited, and
 * `end` (default `follow`) for the same when that rel=next came from an empty page, which should
 * have been the end.
 */
export interface WalkRules {
  start: RuleId[];
  follow: RuleId[];
  end?: RuleId[];
}

/**
 * Request a Link URL as given. One that leaves the target's origin is not followed (nothing is
 * sent there): it fails PAG-LINK-FOLLOW, as a link to another collection than this one would.
 */
export function followLink(
  t: CheckContext,
  url: string,
  what: string,
  headers?: Record<string, string>,
): Promise<HttpResponse> {
  return t.http.follow(url, { headers, leaving: { what, rules: ['PAG-LINK-FOLLOW'] } });
}

/** Parameters of a walk's request that every link it follows must keep: all but the page and its size. */
const PAGE_PARAMS = new Set(['page', 'per_page']);

/**
 * The premise of following a link: it keeps the parameters of the request the walk started with
 * (decoded, in any order; PAG-LINK-FOLLOW). A link that drops one leads to another collection or
 * order, so what its pages hold says nothing of the rows: the check stops on that rule.
 */
export function expectKeepsParams(t: CheckContext, link: string, request: string, what: string): void {
  const sent = new URL(request).searchParams;
  const kept = new URL(link).searchParams;
  for (const name of new Set(sent.keys())) {
    if (PAGE_PARAMS.has(name)) continue;
    const [want, got] = [sent.getAll(name), kept.getAll(name)];
    t.expect(
      want.join('\u0000') === got.join('\u0000'),
      `${what} drops or changes the request's ${name}=${want.join(',')}: its pages are not this walk's collection`,
      { link: redact(link), parameter: name, inLink: got, rules: ['PAG-LINK-FOLLOW'] },
    );
  }
}

export interface Walk {
  pages: Page[];
  /** The last page reached had no rel=next. */
  complete: boolean;
}

/**
 * From a first page, follow rel=next until it is absent or `maxPages` pages were read.
 * A next link that points back to a page already seen is a loop and fails at once.
 */
export async function followNext(
  t: CheckContext,
  first: HttpResponse,
  options: { maxPages: number; headers?: Record<string, string>; what?: string; rules: WalkRules },
): Promise<Walk> {
  const what = options.what ?? 'collection';
  const pages = [readPage(t, first, `first page of ${what}`, options.rules.start)];
  const seen = new Set<string>([urlKey(first.url)]);
  while (pages.length < options.maxPages) {
    const page = pages[pages.length - 1];
    const next = rel(t, page, 'next');
    if (next === undefined) return { pages, complete: true };
    const rules = page.items.length === 0 ? (options.rules.end ?? options.rules.follow) : options.rules.follow;
    t.expect(!seen.has(urlKey(next)), `rel=next of page ${pages.length} of ${what} points to a page already visited`, {
      next: redact(next),
      rules,
    });
    expectKeepsParams(t, next, first.url, `rel=next of page ${pages.length} of ${what}`);
    seen.add(urlKey(next));
    const response = await followLink(t, next, `rel=next of page ${pages.length} of ${what}`, options.headers);
    pages.push(readPage(t, response, `page ${pages.length + 1} of ${what} (from rel=next)`, rules));
  }
  return { pages, complete: rel(t, pages[pages.length - 1], 'next') === undefined };
}

/**
 * A record's identity within a collection: its numeric id; else its path (tree entries, whose
 * object id repeats for identical content); else its name (registry tags).
 */
export function key(item: Record<string, unknown>): string {
  const id = integerId(item.id);
  if (id !== undefined) return String(id);
  if (typeof item.path === 'string') return item.path;
  const name = item.name ?? item.id;
  return typeof name === 'string' || typeof name === 'number' ? String(name) : JSON.stringify(item);
}

/** A URL for a report, with any token presented in its query masked. */
export function redact(url: string): string {
  return url.replace(/((?:access_token|private_token|token)=)[^&#]*/gi, '$1[redacted]');
}
