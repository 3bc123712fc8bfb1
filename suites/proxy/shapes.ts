/**
 * Response shapes per operation, from spec/openapi.yaml: an answer's JSON body held to the schema
 * its operation documents for that status, with the suites' own validator (grants/schemas.ts).
 * Only where a violation has one owner: the schema is a component naming exactly one rule, that
 * the operation names too, with nothing release-bound inside (ajv knows no release: an
 * `x-since`/`x-until` member is judged by the versioning checks), on the OAuth and OpenID Connect
 * endpoints (see isRest). Other shapes are judged by the
 * specific assertions (token members per grant, token info aliases, error bodies).
 */
import { operations, schema, type RuleId } from '../../spec/index.js';
import type { CheckContext, HttpResponse } from '../types.js';
import { jsonValue } from '../shared/json.js';
import { expectSchema } from '../grants/schemas.js';
import { operationOf } from '../diff/operation.js';
import { expectAttributeAbsent, REMOVED_ATTRIBUTES } from '../versioning/index.js';
import { LEGACY_JWKS_PATH } from '../oidc/support.js';

/** Array answers: the first rows are enough to see a shape, and bound the work per exchange. */
const MAX_ROWS = 20;

export interface Shape {
  name: string;
  rule: RuleId;
  array: boolean;
}

const releaseBound = (node: unknown): boolean =>
  node !== null &&
  typeof node === 'object' &&
  ('x-since' in node || 'x-until' in node || Object.values(node).some(releaseBound));

/**
 * The REST API's components name the rule they are evidence for (Issue: ENC-ID-AND-IID), not an
 * owner of every member (a missing title is no id/iid failure): their shapes are left to the checks.
 */
const isRest = (path: string) => path.startsWith('/api/');

let shapes: Map<string, Shape> | undefined;

/** `METHOD /template STATUS` → the one-rule component its JSON answer must match. */
function compile(): Map<string, Shape> {
  const out = new Map<string, Shape>();
  for (const op of operations()) {
    const responses = (op.raw.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>;
    for (const [status, response] of Object.entries(responses)) {
      const body = response.content?.['application/json']?.schema as
        { $ref?: string; type?: string; items?: { $ref?: string } } | undefined;
      const ref = body?.$ref ?? (body?.type === 'array' ? body.items?.$ref : undefined);
      const name = ref?.split('/').pop();
      if (!name) continue;
      const component = schema(name) as { 'x-rules'?: RuleId[] };
      const rules = component['x-rules'] ?? [];
      if (rules.length !== 1 || !op.rules.includes(rules[0]) || releaseBound(component) || isRest(op.path)) continue;
      out.set(`${op.method.toUpperCase()} ${op.path} ${status}`, { name, rule: rules[0], array: !body?.$ref });
    }
  }
  return out;
}

/** The operations and statuses judged, and by which component and rule (for the README and tests). */
export function judgedShapes(): ReadonlyMap<string, Shape> {
  return (shapes ??= compile());
}

/** The answer against its operation's documented shape, where that shape has one owner. */
export function judgeShape(t: CheckContext, method: string, res: HttpResponse): void {
  shapes ??= compile();
  const operation = operationOf(method, res.url);
  const shape = shapes.get(`${operation} ${res.status}`);
  if (!shape) return;
  const body = jsonValue(res);
  if (body === undefined) {
    t.soft(false, `${operation} ${res.status}: the answer is not JSON where ${shape.name} is documented`, {
      rules: [shape.rule],
    });
    return;
  }
  const rows = shape.array ? (Array.isArray(body) ? body.slice(0, MAX_ROWS) : [body]) : [body];
  if (rows.length === 0) return;
  // A non-array where rows are documented is one violation: validated as the row schema, it fails.
  // expectSchema names the rule on a match as on a violation; the first row that breaks it is enough.
  for (const row of rows) if (!expectSchema(t, row, shape.name, `${operation} ${res.status}`, [shape.rule])) return;
}

/** A project, its feature flags or its packages still carrying an attribute the release removed (the versioning checks' own assertion). */
export function judgeRemovedAttributes(t: CheckContext, method: string, res: HttpResponse): void {
  if (res.status !== 200) return;
  const operation = operationOf(method, res.url);
  const removed = REMOVED_ATTRIBUTES.find((r) => operation === `GET /api/v4/projects/{id}${r.suffix}`);
  const body = removed ? jsonValue(res) : undefined;
  if (!removed || body === undefined) return;
  const items = Array.isArray(body) ? body.slice(0, MAX_ROWS) : [body];
  if (items.length) expectAttributeAbsent(t, items, removed);
}

/** The legacy key set alias answered 404, as from 17.0 (VER-JWKS-REMOVED; the report keeps it only where in force). */
export function judgeLegacyJwks(t: CheckContext, method: string, res: HttpResponse): void {
  if (method !== 'GET' || new URL(res.url).pathname !== LEGACY_JWKS_PATH || res.status >= 500) return;
  t.soft(res.status === 404, `${LEGACY_JWKS_PATH} must answer 404 from 17.0, got ${res.status}`, {
    rules: ['VER-JWKS-REMOVED'],
  });
}
