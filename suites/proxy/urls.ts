/**
 * The proxy's URL space and the target's. The proxy serves the target's paths under its own root
 * (a request for /api/v4/projects goes to {--target}/api/v4/projects), so the client asks without
 * the target's path prefix; a provider mounted under one (a relative URL root, `https://host/gitlab`)
 * writes its own links with it. Pages are compared in the client's space: a link is taken there
 * before it is remembered.
 */
import { digest } from './flows.js';

/** The target's path prefix, no trailing slash (`` for a target at its root): what the proxy puts before each request target. */
export function basePathOf(target: URL): string {
  return target.pathname.replace(/(?<!\/)\/+$/, '');
}

/**
 * The path the target is asked for a request target the client sent: under the prefix, unless it
 * already is (a link the provider wrote with its prefix, followed as written, as python-gitlab
 * follows `rel=next`: prefixing it again asked `/gitlab/gitlab/…`, a 404).
 */
export function upstreamPath(base: string, requestTarget: string): string {
  const under =
    base !== '' &&
    (requestTarget === base || requestTarget.startsWith(`${base}/`) || requestTarget.startsWith(`${base}?`));
  return under ? requestTarget : base + requestTarget;
}

/** The key a page is remembered by: a digest of its path and query as the client asks them. */
const keyOf = (path: string, search: string): string => digest(path + search);
export const pageKey = (url: URL): string => keyOf(url.pathname, url.search);

/**
 * The keys of the page a target's link names (`linked`, resolved against the client's request):
 * the link as written and, when its path lies under the target's prefix `base`, without it. A
 * client may ask either: the one that follows the link as written, and the one that takes the
 * page onto its own base URL (gitbeaker keeps its endpoint and takes the link's query). The origin
 * is not compared: a provider writes its links with its configured host, not the proxy's.
 */
export function linkedKeys(linked: URL, base: string): string[] {
  const keys = [pageKey(linked)];
  if (base !== '' && linked.pathname.startsWith(`${base}/`))
    keys.push(keyOf(linked.pathname.slice(base.length), linked.search));
  return keys;
}
