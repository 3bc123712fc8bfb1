/** A tiny in-memory target for the runner's own tests: a function from request to response. */
import type { RawRequest, Target, TargetResponse } from '../../suites/target/types.js';
import type { Check, CheckContext, TargetConfig } from '../../suites/types.js';
import type { RuleInfo } from '../../suites/runner/rules.js';
import type { RuleId } from '../../spec/index.js';
import { createCheckContext, createEvidence, type ContextParts } from '../../suites/runner/context.js';
import { createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';

export const FAKE_BASE = 'http://fake.test';

/** What a session asks after its feature probes: is each endpoint family there (suites/runner/capabilities.ts)? */
export const FAMILY_PROBES = [
  'GET /.well-known/openid-configuration',
  'GET /api/v4/user',
  'GET /oauth/token/info',
  'GET /oauth/userinfo',
  // An empty form: is the endpoint there at all?
  'POST /oauth/token',
  'POST /oauth/revoke',
  'POST /oauth/authorize_device',
  'GET /oauth/discovery/keys',
  'GET /oauth/authorize',
];

/**
 * What a session's start-up asks of a target with no discovery document: RFC 8414's metadata too,
 * for where the endpoints are (suites/shared/oauth.ts readMetadata), then the family probes.
 */
export const SESSION_PROBES = [
  FAMILY_PROBES[0],
  'GET /.well-known/oauth-authorization-server',
  ...FAMILY_PROBES.slice(1),
];

export function fakeTarget(
  handler: (r: RawRequest) => Response | Promise<Response> = () => new Response('{}', { status: 404 }),
  config: Partial<TargetConfig> = {},
): Target {
  return {
    kind: 'embedded',
    name: 'fake target',
    baseUrl: FAKE_BASE,
    config: { baseUrl: FAKE_BASE, ...config },
    send: async (r) => handler(r),
    close: async () => undefined,
  };
}

export const RULES: RuleInfo[] = [
  { id: 'T-MUST', title: 'a must rule', level: 'must', source: 'test', origin: 'source' },
  { id: 'T-MUST-2', title: 'another must rule', level: 'must', source: 'test', origin: 'source' },
  { id: 'T-SHOULD', title: 'a should rule', level: 'should', source: 'test', origin: 'source' },
  {
    id: 'T-FUTURE',
    title: 'a rule of a later release',
    level: 'must',
    source: 'test',
    origin: 'source',
    since: '99.0',
  },
];

/** A check body that asks the target something and asserts on the answer: the least a pass needs. */
export const seen =
  (rules?: string[]) =>
  async (t: CheckContext): Promise<void> => {
    const response = await t.http.get('/');
    t.expect(response.status > 0, 'the target answered', rules ? { rules: fakeRules(...rules) } : undefined);
  };

/** The invented ids of RULES where code wants rule ids (they are not in spec/rules.yaml: hence the cast). */
export const fakeRules = (...ids: string[]): RuleId[] => ids as RuleId[];

export function check(
  id: string,
  rules: string[],
  run: (t: CheckContext) => Promise<void>,
  extra: Partial<Check> = {},
): Check {
  return { id: `grants.${id}`, suite: 'grants', title: id, rules: fakeRules(...rules), run, ...extra };
}

/**
 * A target's answer as a Fetch Response, for test wrappers that edit answers (clone, json, new
 * Response): the embedded target answers a lighter TargetResponse.
 */
export async function fetchResponse(answer: Promise<TargetResponse>): Promise<Response> {
  const r = await answer;
  if (r instanceof Response) return r;
  const text = await r.text();
  return new Response(text === '' ? null : text, { status: r.status, headers: r.headers });
}

/**
 * A check context over nothing (no target, no driver unless given): the runner-level fields a
 * context needs, each overridable (`evidence`, `recorder`, `redactor`, `driver`, `oauth`, `seed`…).
 */
export function fakeCheckContext(over: Record<string, unknown> = {}): CheckContext {
  const parts = {
    config: { baseUrl: FAKE_BASE },
    release: '18.0',
    offering: 'self-managed',
    caps: {},
    http: {},
    driver: {},
    oauth: {},
    seed: 1,
    numRuns: 1,
    slow: false,
    inForce: () => true,
    recorder: createRecorder(),
    redactor: createRedactor(),
    evidence: createEvidence(),
    ...over,
  } as unknown as ContextParts;
  return createCheckContext(parts);
}

/** A context whose assertions record the rules they failed; expect ends the judgement, as in a check. */
export function recording(): { t: CheckContext; failed: string[] } {
  const failed: string[] = [];
  const note = (ok: unknown, details?: { rules?: string[] }) => {
    if (!ok) failed.push(...(details?.rules ?? []));
    return Boolean(ok);
  };
  const t = {
    expect: (ok: unknown, _message: string, details?: { rules?: string[] }) => {
      if (!note(ok, details)) throw new Error('failed');
    },
    soft: (ok: unknown, _message: string, details?: { rules?: string[] }) => note(ok, details),
  } as unknown as CheckContext;
  return { t, failed };
}
