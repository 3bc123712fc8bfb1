import { describe, expect, it } from 'vitest';
import { createRouter } from '../../simulator/router.js';
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
