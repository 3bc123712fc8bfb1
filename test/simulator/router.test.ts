import { describe, expect, it } from 'vitest';
import { compileRoute, createRouter } from '../../simulator/router.js';
import { operations } from '../../spec/index.js';

const route = createRouter(operations());

describe('router (from spec/openapi.yaml)', () => {
  it('routes an URL-encoded namespaced path into one parameter, decoded', () => {
    const m = route('GET', '/api/v4/projects/group%2Fsub%2Fproject');
    expect(m.kind).toBe('found');
    if (m.kind === 'found') {
      expect(m.op.operationId).toBe('getProject');
      expect(m.params.id).toBe('group/sub/project');
    }
  });

  it('matches no endpoint when the slash is not encoded', () => {
    expect(route('GET', '/api/v4/projects/group/sub/project').kind).toBe('not-found');
  });

  it('prefers literal segments over parameters', () => {
    const m = route('GET', '/oauth/token/info');
    expect(m.kind === 'found' && m.op.operationId).toBe('oauthTokenInfo');
  });

  it('lets an x-greedy parameter span segments (Git over HTTPS)', () => {
    const m = route('GET', '/group/sub/project.git/info/refs');
    expect(m.kind === 'found' && m.params).toEqual({ namespace: 'group/sub', project: 'project' });
  });

  it('answers method-not-allowed with the allowed methods', () => {
    const m = route('DELETE', '/oauth/token');
    expect(m).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
  });
});

describe('router grouping', () => {
  // Grouping by first segment is an optimisation: it must answer exactly as trying every route in
  // order of specificity does (this reference is that plain scan).
  const routes = operations()
    .map(compileRoute)
    .sort((a, b) => b.specificity - a.specificity);
  const reference = (method: string, rawPath: string) => {
    const wanted = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const allow = new Set<string>();
    for (const r of routes) {
      const m = r.pattern.exec(rawPath);
      if (!m) continue;
      const params: Record<string, string> = {};
      try {
        r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
      } catch {
        continue;
      }
      if (r.op.method === wanted) return { kind: 'found', op: r.op, params };
      allow.add(r.op.method.toUpperCase());
    }
    return allow.size ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'not-found' };
  };
  const fillers = ['x1', '42', 'group%2Fproject', 'a/b', '%E0%A4%A', 'info', 'oauth'];
  const paths = new Set(['/', '//x', '/api', '/api/v4', '/oauth', '/oauth/', '/-/simulator/stats', '/unknown/path']);
  for (const op of operations()) for (const fill of fillers) paths.add(op.path.replace(/\{\w+\}/g, fill));

  it('routes every path as the plain scan does, for every method', () => {
    expect(paths.size).toBeGreaterThan(100);
    for (const path of paths)
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])
        expect(route(method, path), `${method} ${path}`).toEqual(reference(method, path));
  });
});

describe('routes kept', () => {
  it('a request routed twice (body limit, then dispatch) is looked up once: the same frozen answer', () => {
    const kept = createRouter(operations());
    const first = kept('POST', '/oauth/token');
    expect(kept('POST', '/oauth/token')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const project = kept('GET', '/api/v4/projects/7');
    expect(project.kind === 'found' && Object.isFrozen(project.params)).toBe(true);
    // Many odd paths clear the table rather than grow it, and answers stay right.
    for (let i = 0; i < 3000; i++) expect(kept('GET', `/api/v4/projects/${i}`).kind).toBe('found');
    expect(kept('GET', '/api/v4/projects/a/b').kind).toBe('not-found');
    expect(kept('POST', '/oauth/token')).toEqual(first);
  });
});
