/**
 * Whether a JSON answer matches what spec/openapi.yaml documents for its operation and status:
 * the same schemas the suites judge bodies by. A member that differs from the reference in an
 * answer that matches them is a variation the spec allows (an optional member left out, a member
 * nobody asked for), so `diff` reports it as `allowed`, not as a finding.
 */
import { createAjv, type ValidateFunction } from '../../spec/ajv.js';
import { openapi } from '../../spec/index.js';

// The spec's schemas carry x-* annotations: not strict.
const ajv = createAjv({ strict: false, allErrors: false });

/** Where the documented schema is broken, as a member path (`$.expires_in`). */
const pathOf = (instancePath: string) =>
  `$${instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? '[]' : `.${p}`))
    .join('')}`;
/** By `METHOD /template STATUS`: the compiled schema, or null where none is documented. */
const compiled = new Map<string, ValidateFunction | null>();

export type Node = Record<string, unknown> | undefined;

/** `$ref: "#/components/…"` followed inside the document (responses may be shared ones). */
export function resolve(node: Node): Node {
  const ref = node?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  let at: unknown = openapi();
  for (const part of ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[part];
  return at as Node;
}

/** The operation's documented responses (`METHOD /template`), by status as written. */
export function responsesOf(operation: string): Record<string, Node> {
  const [method, path] = operation.split(' ');
  const op = (openapi().paths?.[path] as Node)?.[method.toLowerCase()] as Node;
  return (op?.responses as Record<string, Node> | undefined) ?? {};
}

/** The response spec/openapi.yaml documents for an answer of `status`: that status, its class (`4XX`), or the default. */
export function responseOf(operation: string, status: string): Node {
  const responses = responsesOf(operation);
  return resolve(responses[status] ?? responses[`${status[0]}XX`] ?? responses.default);
}

function documented(operation: string, status: string): ValidateFunction | null {
  const response = responseOf(operation, status);
  const schema = (response?.content as Record<string, Node> | undefined)?.['application/json']?.schema;
  if (!schema || typeof schema !== 'object') return null;
  // The document's components ride along, so the schema's `#/components/…` references resolve.
  return ajv.compile({ ...schema, components: openapi().components });
}

/**
 * True where the answer matches the JSON body the spec documents for it, else the member path of
 * the first violation; undefined where nothing is documented.
 */
export function conformsToSpec(operation: string, status: string, body: unknown): true | string | undefined {
  const key = `${operation} ${status}`;
  if (!compiled.has(key)) compiled.set(key, documented(operation, status));
  const validate = compiled.get(key);
  if (!validate) return undefined;
  return validate(body) || pathOf(validate.errors?.[0]?.instancePath ?? '');
}
