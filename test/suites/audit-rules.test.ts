/**
 * The rule-level items of issue 21's audit, each proved on the embedded simulator behind a mutant
 * that breaks exactly the sentence at stake: the check must report the rule the answer breaks, at
 * that rule's level (a `must` fails, a `should` warns), and nothing it does not break. Without the
 * mutant each check passes.
 */
import { describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, decodeJwt } from 'jose';
import { allChecks } from '../../suites/index.js';
import { runConformance } from '../../suites/runner/run.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import { fetchResponse } from './fakes.js';
import type { RawRequest, Target } from '../../suites/target/types.js';
import type { CheckResult } from '../../suites/report/model.js';
import type { FaultName } from '../../spec/index.js';

type Send = (raw: RawRequest) => Promise<Response>;
type Mutant = (raw: RawRequest, send: Send) => Promise<Response>;

const SEED = 20_261_125;
const RUNS = 3;
const pathOf = (raw: RawRequest) => new URL(raw.url).pathname;
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** Rewrite the JSON object of a successful answer on `path`. */
const rewrite =
  (path: string | RegExp, edit: (body: Record<string, unknown>, raw: RawRequest) => unknown): Mutant =>
  async (raw, send) => {
    const res = await send(raw);
    const hit = typeof path === 'string' ? pathOf(raw) === path : path.test(pathOf(raw));
    if (!hit || res.status >= 300) return res;
    return json(res.status, await edit((await res.json()) as Record<string, unknown>, raw), {
      ...Object.fromEntries([...res.headers].filter(([name]) => /^(link|x-)/i.test(name))),
    });
  };

async function runCheck(id: string, mutant?: Mutant, release?: string, faults?: FaultName[]): Promise<CheckResult> {
  const check = allChecks().find((c) => c.id === id);
  expect(check, `no check ${id}`).toBeDefined();
  const inner = await createEmbeddedTarget({ release, ...(faults ? { faults } : {}) });
  const target: Target = mutant ? { ...inner, send: (raw) => mutant(raw, (r) => fetchResponse(inner.send(r))) } : inner;
  const report = await runConformance({ target, checks: [check!], seed: SEED, numRuns: RUNS });
  return report.checks[0];
}

const brokenBy = (result: CheckResult) =>
  [...new Set((result.failures ?? [{ broken: result.broken ?? [] }]).flatMap((f) => f.broken))].sort();

/** An id_token re-signed with ES256 by a key that the key set then publishes (alone). */
async function es256Mutant(): Promise<Mutant> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' };
  const keys = rewrite('/oauth/discovery/keys', () => ({ keys: [jwk] }));
  const tokens = rewrite('/oauth/token', async (body) => {
    if (typeof body.id_token !== 'string') return body;
    const claims = decodeJwt(body.id_token);
    const id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'ec-1' }).sign(privateKey);
    return { ...body, id_token };
  });
  return (raw, send) => keys(raw, (r) => tokens(r, send));
}

describe('OpenID Connect id_token (OIDC Core §2, §3.1.3.3, §3.1.3.7)', () => {
  it('passes on the simulator', async () => {
    expect((await runCheck('oidc.id-token')).status).toBe('passed');
  });

  it('an id_token missing after an openid grant fails OIDC-ID-TOKEN (must)', async () => {
    const result = await runCheck(
      'oidc.id-token',
      rewrite('/oauth/token', ({ id_token: _, ...rest }) => rest),
    );
    expect(result.status).toBe('failed');
    expect(brokenBy(result)).toEqual(['OIDC-ID-TOKEN']);
  });

  it('a nonce not echoed fails OIDC-ID-TOKEN-CLAIMS (must)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' };
    const keys = rewrite('/oauth/discovery/keys', () => ({ keys: [jwk] }));
    const tokens = rewrite('/oauth/token', async (body) => {
      if (typeof body.id_token !== 'string') return body;
      const { nonce: _, ...claims } = decodeJwt(body.id_token);
      const id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(privateKey);
      return { ...body, id_token };
    });
    const result = await runCheck('oidc.id-token', (raw, send) => keys(raw, (r) => tokens(r, send)));
    expect(result.status).toBe('failed');
    expect(brokenBy(result)).toEqual(['OIDC-ID-TOKEN-CLAIMS']);
  });

  it('an id_token signed with ES256 by a published key only warns OIDC-ID-TOKEN-RS256 (should)', async () => {
    const result = await runCheck('oidc.id-token', await es256Mutant());
    expect(result.status).toBe('warned');
    expect(brokenBy(result)).toEqual(['OIDC-ID-TOKEN-RS256']);
  });

  it('the same id_token passes oidc.userinfo, which reads it only for its sub (review 29)', async () => {
    // Before, its verification warned OIDC-ID-TOKEN-RS256 in oidc.userinfo too: one cause, two blames.
    const result = await runCheck('oidc.userinfo', await es256Mutant());
    expect(result.status, result.message).toBe('passed');
  });
});

/** The authorize request rewritten before the simulator sees it (query parameters only). */
const authorizeQuery =
  (edit: (query: URLSearchParams) => void): Mutant =>
  (raw, send) => {
    if (pathOf(raw) !== '/oauth/authorize' || raw.method !== 'GET') return send(raw);
    const url = new URL(raw.url);
    edit(url.searchParams);
    return send({ ...raw, url: url.href });
  };

/** What a redirect to the application carries, rewritten. */
const redirectError =
  (from: string, to: string): Mutant =>
  async (raw, send) => {
    const res = await send(raw);
    const location = res.headers.get('location');
    if (!location?.includes(`error=${from}`)) return res;
    const headers = new Headers(res.headers);
    headers.set('location', location.replace(`error=${from}`, `error=${to}`));
    return new Response(null, { status: res.status, headers });
  };

const sha256url = async (text: string) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('base64url');

describe('PKCE challenge methods (RFC 7636 §4.4.1): unknown is a must, plain either way', () => {
  it('both checks pass on the simulator (it refuses plain)', async () => {
    expect((await runCheck('grants.pkce-method-unsupported')).status).toBe('passed');
    expect((await runCheck('grants.pkce-method-plain')).status).toBe('passed');
  });

  it('an unknown method accepted fails PKCE-METHOD-UNSUPPORTED (must)', async () => {
    const mutant = authorizeQuery((q) => {
      if (q.has('code_challenge_method') && !['S256', 'plain'].includes(q.get('code_challenge_method')!))
        q.set('code_challenge_method', 'S256');
    });
    const result = await runCheck('grants.pkce-method-unsupported', mutant);
    expect(result.status).toBe('failed');
    expect(brokenBy(result)).toEqual(['PKCE-METHOD-UNSUPPORTED']);
  });

  it('an unknown method refused with another error fails PKCE-METHOD-UNSUPPORTED (must)', async () => {
    const result = await runCheck('grants.pkce-method-unsupported', redirectError('invalid_request', 'access_denied'));
    expect(result.status).toBe('failed');
    expect(brokenBy(result)).toEqual(['PKCE-METHOD-UNSUPPORTED']);
  });

  it('plain supported (the code redeemed with the challenge as verifier) passes', async () => {
    // A server that supports plain, played by turning a plain challenge into its S256 form.
    const mutant: Mutant = async (raw, send) => {
      if (pathOf(raw) !== '/oauth/authorize' || raw.method !== 'GET') return send(raw);
      const url = new URL(raw.url);
      const q = url.searchParams;
      const challenge = q.get('code_challenge');
      if (challenge && (q.get('code_challenge_method') ?? 'plain') === 'plain') {
        q.set('code_challenge', await sha256url(challenge));
        q.set('code_challenge_method', 'S256');
      }
      return send({ ...raw, url: url.href });
    };
    const result = await runCheck('grants.pkce-method-plain', mutant);
    expect(result.status, result.message).toBe('passed');
  });

  it('plain refused with another error only warns PKCE-METHOD-PLAIN (should)', async () => {
    const result = await runCheck('grants.pkce-method-plain', redirectError('invalid_request', 'access_denied'));
    expect(result.status).toBe('warned');
    expect(brokenBy(result)).toEqual(['PKCE-METHOD-PLAIN']);
  });
});

describe('source sentences at level should become must (L263, L284)', () => {
  it('the maximum offset: serving beyond it fails PAG-MAX-OFFSET; refusing with 422 only warns PAG-MAX-OFFSET-400', async () => {
    expect((await runCheck('pagination.max-offset')).status).toBe('passed');
    const served: Mutant = async (raw, send) => {
      const res = await send(raw);
      return res.status === 400 && pathOf(raw).startsWith('/api/v4/') ? json(200, []) : res;
    };
    const ignored = await runCheck('pagination.max-offset', served);
    expect(ignored.status).toBe('failed');
    expect(brokenBy(ignored)).toEqual(['PAG-MAX-OFFSET']);
    const other: Mutant = async (raw, send) => {
      const res = await send(raw);
      return res.status === 400 && pathOf(raw).startsWith('/api/v4/')
        ? json(422, { message: 'offset too large' })
        : res;
    };
    const refused = await runCheck('pagination.max-offset', other);
    expect(refused.status).toBe('warned');
    expect(brokenBy(refused)).toEqual(['PAG-MAX-OFFSET-400']);
  });

  it('long parameters in a body not read whole fail ENC-LONG-PARAMS-IN-BODY', async () => {
    expect((await runCheck('encoding.long-params-in-body')).status).toBe('passed');
    const truncated: Mutant = async (raw, send) => {
      const res = await send(raw);
      if (raw.method !== 'POST' || !pathOf(raw).endsWith('/issues') || res.status >= 300) return res;
      const body = (await res.json()) as Record<string, unknown>;
      return json(res.status, { ...body, description: String(body.description).slice(0, 255) });
    };
    const result = await runCheck('encoding.long-params-in-body', truncated);
    expect(result.status).toBe('failed');
    expect(brokenBy(result)).toEqual(['ENC-LONG-PARAMS-IN-BODY']);
  });
});

describe('no scope requested (RFC 6749 §3.3): a default within the application, or invalid_scope', () => {
  it('passes on the simulator (api) and on a provider refusing with invalid_scope', async () => {
    expect((await runCheck('grants.scope-default')).status).toBe('passed');
    const refusing = authorizeQuery((q) => {
      if (!q.has('scope')) q.set('scope', 'conformance-no-such-scope');
    });
    expect((await runCheck('grants.scope-default', refusing)).status).toBe('passed');
  });

  it('a default outside the application fails GRANT-SCOPE-ALLOWED; another refusal code warns', async () => {
    const outside = rewrite('/oauth/token/info', (body) => ({
      ...body,
      scope: [...(body.scope as string[]), 'conformance-outside'],
    }));
    const wide = await runCheck('grants.scope-default', outside);
    expect(wide.status).toBe('failed');
    expect(brokenBy(wide)).toEqual(['GRANT-SCOPE-ALLOWED', 'SCOPE-GRANTED-SUBSET']);
    const refusing: Mutant = (raw, send) =>
      authorizeQuery((q) => {
        if (!q.has('scope')) q.set('scope', 'conformance-no-such-scope');
      })(raw, (r) => redirectError('invalid_scope', 'invalid_request')(r, send));
    const refused = await runCheck('grants.scope-default', refusing);
    expect(refused.status).toBe('warned');
    expect(brokenBy(refused)).toEqual(['SCOPE-GRANTED-SUBSET']);
  });
});

describe('loopback redirect URIs take any port (RFC 8252 §7.3)', () => {
  it('the simulator issues and redeems a code at another port; one that compares the port fails the rule', async () => {
    const clean = await runCheck('grants.loopback-redirect-any-port');
    expect(clean.status, clean.message).toBe('passed');
    const exact = await runCheck('grants.loopback-redirect-any-port', undefined, undefined, ['loopback-port-exact']);
    expect(exact.status).toBe('failed');
    expect(brokenBy(exact)).toEqual(['GRANT-REDIRECT-LOOPBACK-PORT']);
  });
});

describe('keyset pages shorter than per_page while more follow (source: default and maximum only)', () => {
  it('only warn PAG-KEYSET-FULL-PAGES; the must PAG-KEYSET-PARAMS holds', async () => {
    const short: Mutant = async (raw, send) => {
      const res = await send(raw);
      const url = new URL(raw.url);
      if (url.searchParams.get('pagination') !== 'keyset' || !/rel="?next/.test(res.headers.get('link') ?? ''))
        return res;
      const rows = (await res.json()) as unknown[];
      return new Response(JSON.stringify(rows.length > 1 ? rows.slice(0, -1) : rows), {
        status: res.status,
        headers: res.headers,
      });
    };
    const result = await runCheck('pagination.keyset-list-projects', short);
    expect(result.status, result.message).toBe('warned');
    expect(brokenBy(result)).toEqual(['PAG-KEYSET-FULL-PAGES']);
  });
});

describe('records identified by fields the source does not show (path_with_namespace, created_at)', () => {
  /** Every project answer without path_with_namespace (ids stay). */
  const noPathField: Mutant = async (raw, send) => {
    const res = await send(raw);
    if (!/^\/api\/v4\/projects(\/[^/]+)?$/.test(pathOf(raw)) || res.status !== 200) return res;
    const strip = (p: unknown) => {
      const { path_with_namespace: _, ...rest } = p as Record<string, unknown>;
      return rest;
    };
    const body = (await res.json()) as unknown;
    return json(200, Array.isArray(body) ? body.map(strip) : strip(body), {
      ...Object.fromEntries([...res.headers].filter(([name]) => /^(link|x-)/i.test(name))),
    });
  };

  it('a project answer without path_with_namespace is identified by id, or not judged: no failure', async () => {
    for (const id of ['encoding.namespaced-path-encoded', 'encoding.moved-path-redirect']) {
      expect((await runCheck(id)).status, id).toBe('passed');
      const result = await runCheck(id, noPathField);
      expect(result.status, `${id}: ${result.message}`).toBe('passed');
    }
  });

  it('a target that does not filter by created_after skips the + check with that reason', async () => {
    const ignored: Mutant = (raw, send) => {
      const url = new URL(raw.url);
      if (!url.searchParams.has('created_after')) return send(raw);
      url.searchParams.delete('created_after');
      return send({ ...raw, url: url.href });
    };
    expect((await runCheck('encoding.plus-versus-percent-2b')).status).toBe('passed');
    const result = await runCheck('encoding.plus-versus-percent-2b', ignored);
    expect(result.status).toBe('skipped');
    expect(result.message).toMatch(/created_after/);
  });
});
