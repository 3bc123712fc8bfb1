/**
 * Routing from spec/openapi.yaml. Each path template becomes one regular expression over the raw
 * (still percent-encoded) path: a parameter matches within one segment, so `group%2Fproject`
 * reaches `{id}` while `group/project` matches nothing and answers 404, as the source demands.
 * A parameter named by `x-greedy` may span segments (Git over HTTPS: `/group/sub/project.git`).
 */
import type { OperationInfo } from '../spec/index.js';

export interface Route {
  op: OperationInfo;
  pattern: RegExp;
  names: string[];
  /** literal characters in the template: more literal = more specific = tried first */
  specificity: number;
  /** the template's text before its first parameter: a path not starting with it cannot match */
  prefix: string;
}

export type Match =
  | { kind: 'found'; op: OperationInfo; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compileRoute(op: OperationInfo): Route {
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const m of op.path.matchAll(/\{(\w+)\}/g)) {
    source += escape(op.path.slice(last, m.index));
    names.push(m[1]);
    source += m[1] === op.greedy ? '([^?#]+?)' : '([^/?#]+?)';
    last = m.index + m[0].length;
  }
  source += escape(op.path.slice(last));
  const specificity = op.path.replace(/\{\w+\}/g, '').length;
  return { op, pattern: new RegExp(`^${source}$`), names, specificity, prefix: op.path.split('{')[0] };
}

/** The first segment of a path (`api` of `/api/v4/...`), the key routes are grouped by. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/**
 * Routes are grouped by the first path segment their template fixes (`api`, `oauth`, ...); a
 * template whose first segment is a parameter (Git's `/{namespace}/...`) is in every group. A
 * lookup tries only its group, in order of specificity, and runs a route's expression only when
 * the path starts with the route's literal prefix.
 */
export function createRouter(ops: OperationInfo[]): (method: string, rawPath: string) => Match {
  const routes = ops.map(compileRoute).sort((a, b) => b.specificity - a.specificity);
  const fixesFirst = (r: Route) => r.prefix.indexOf('/', 1) !== -1 || r.prefix === r.op.path;
  const anywhere = routes.filter((r) => !fixesFirst(r));
  const groups = new Map<string, Route[]>();
  for (const r of routes.filter(fixesFirst)) {
    const key = firstSegment(r.prefix);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(r);
  }
  for (const [key, list] of groups)
    groups.set(
      key,
      [...list, ...anywhere].sort((a, b) => b.specificity - a.specificity),
    );
  const lookup = (method: string, rawPath: string): Match => {
    const wanted = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const allow = new Set<string>();
    for (const route of groups.get(firstSegment(rawPath)) ?? anywhere) {
      if (!rawPath.startsWith(route.prefix)) continue;
      const m = route.pattern.exec(rawPath);
      if (!m) continue;
      const params: Record<string, string> = {};
      let decodable = true;
      for (let i = 0; i < route.names.length && decodable; i++) {
        try {
          params[route.names[i]] = decodeURIComponent(m[i + 1]);
        } catch {
          decodable = false;
        }
      }
      if (!decodable) continue;
      if (route.op.method === wanted) return { kind: 'found', op: route.op, params };
      allow.add(route.op.method.toUpperCase());
    }
    return allow.size ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'not-found' };
  };
  // A request is routed twice (its body limit depends on the route, then its dispatch) and most
  // requests ask for few paths: recent answers are kept (frozen: they are shared), the table
  // cleared when full, so odd paths cannot grow it.
  // One table per method: no key string is built per request.
  const kept = new Map<string, Map<string, Match>>();
  let keptCount = 0;
  return (method, rawPath) => {
    let byPath = kept.get(method);
    let match = byPath?.get(rawPath);
    if (match === undefined) {
      if (keptCount >= ROUTES_KEPT) {
        kept.clear();
        keptCount = 0;
        byPath = undefined;
      }
      match = lookup(method, rawPath);
      if (match.kind === 'found') Object.freeze(match.params);
      if (!byPath) kept.set(method, (byPath = new Map<string, Match>()));
      byPath.set(rawPath, Object.freeze(match));
      keptCount++;
    }
    return match;
  };
}

const ROUTES_KEPT = 1024;
