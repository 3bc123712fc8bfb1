/**
 * The pagination headers by what their numbers say, not the numbers: a page's `x-page` and
 * `x-per-page` against what the request asked (capped as spec/profiles.yaml's limits say), and
 * `x-total` against the records the page holds. The reference's relations are the same for the
 * same request whatever its data, so a target that counts from 0, serves more than the maximum
 * or miscounts its records differs from it, while other data does not.
 */
import { limits } from '../../spec/index.js';

function header(headers: Record<string, string>, name: string): number | undefined {
  const found = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = found === undefined ? '' : headers[found].trim();
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

function asked(url: string, name: string): number | undefined {
  let value: string | null = null;
  try {
    value = new URL(url, 'http://x').searchParams.get(name);
  } catch {
    // no URL: nothing asked
  }
  return value !== null && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/** `x-page`, `x-per-page`, `x-total` by relation, for the headers that are numbers. */
export function paginationShape(headers: Record<string, string>, url: string, body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const page = header(headers, 'x-page');
  const perPage = header(headers, 'x-per-page');
  const total = header(headers, 'x-total');
  if (page !== undefined) {
    // An absent or invalid page is page 1.
    const wanted = asked(url, 'page') || 1;
    out['x-page'] = `number (${page === wanted ? '=' : '≠'} page asked)`;
  }
  if (perPage !== undefined) {
    const { perPageDefault, perPageMax } = limits();
    const wanted = Math.min(asked(url, 'per_page') || perPageDefault, perPageMax);
    out['x-per-page'] = `number (${perPage === wanted ? '=' : '≠'} per_page asked, capped)`;
  }
  if (total !== undefined && page !== undefined && perPage && Array.isArray(body)) {
    const onPage = Math.max(0, Math.min(perPage, total - (page - 1) * perPage));
    out['x-total'] = `number (${onPage === body.length ? 'agrees with' : 'disagrees with'} the records)`;
  }
  return out;
}
