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
  return { op, pattern: new RegExp(`^${source}$`), names, specificity };
}

export function createRouter(ops: OperationInfo[]): (method: string, rawPath: string) => Match {
  const routes = ops.map(compileRoute).sort((a, b) => b.specificity - a.specificity);
  return (method, rawPath) => {
    const wanted = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const allow = new Set<string>();
    for (const route of routes) {
      const m = route.pattern.exec(rawPath);
      if (!m) continue;
      const params: Record<string, string> = {};
      let decodable = true;
      route.names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(m[i + 1]);
        } catch {
          decodable = false;
        }
      });
      if (!decodable) continue;
      if (route.op.method === wanted) return { kind: 'found', op: route.op, params };
      allow.add(route.op.method.toUpperCase());
    }
    return allow.size ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'not-found' };
  };
}
