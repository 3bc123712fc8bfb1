/**
 * Which operation of spec/openapi.yaml a request is: method and path template, so that
 * `/api/v4/projects/7` on the target and `/api/v4/projects/12` on the reference pair up.
 */
import { corsPreflights, openapi, operations, rules } from '../../spec/index.js';
import { isGenerated } from '../shared/generated.js';
import { resolve, responseOf, responsesOf, type Node } from './conforms.js';

interface Template {
  method: string;
  path: string;
  pattern: RegExp;
  /** Literal characters: the most specific template wins (`/projects/starred` over `/projects/{id}`). */
  literal: number;
}

let templates: Template[] | undefined;

function compile(): Template[] {
  return operations().map((op) => {
    const parts = op.path.split(/(\{[^{}]+\})/);
    const source = parts
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        return name === op.greedy ? '.+' : '[^/]+';
      })
      .join('');
    const literal = parts.filter((p) => !p.startsWith('{')).join('').length;
    return { method: op.method.toUpperCase(), path: op.path, pattern: new RegExp(`^${source}$`), literal };
  });
}

/**
 * A path no template matches keeps its shape: numbers become `{n}`, long segments `{id}`, and so
 * does one that holds a secret (`mask` changes it: a link the target wrote may carry a credential).
 * A name the harness made up (suites/shared/generated.ts) is `{generated}`, with what follows it: a
 * random name is no operation, and a project path sent with bare slashes spans a random number of
 * segments (review 30: one extra member on unknown-route 404s read as a row per seed and path).
 */
function generic(path: string, mask: (text: string) => string): string {
  const segments = path.split('/').slice(0, 12);
  const shaped = segments.map((s) =>
    /^\d+$/.test(s) ? '{n}' : s.length > 32 || /[^\w.~%-]/.test(s) || mask(s) !== s ? '{id}' : s,
  );
  const made = segments.findIndex(isGenerated);
  return (made < 0 ? shaped : [...shaped.slice(0, made), '{generated}']).join('/');
}

/**
 * `METHOD /template` of a request URL (absolute, or a path), the query left out. `mask`: the run's
 * redactor, for a path no template matches (shape.ts).
 */
export function operationOf(method: string, url: string, mask = (text: string) => text): string {
  let path: string;
  try {
    path = new URL(url, 'http://x').pathname;
  } catch {
    path = '/';
  }
  templates ??= compile();
  const upper = method.toUpperCase();
  const matching = templates.filter((t) => t.pattern.test(path));
  // A preflight (OPTIONS) names the template of the path it asks about.
  const best =
    matching.filter((t) => t.method === upper).sort((a, b) => b.literal - a.literal)[0] ??
    matching.sort((a, b) => b.literal - a.literal)[0];
  return `${upper} ${best ? best.path : generic(path, mask)}`;
}

let ruleScopes: { byOperation: Map<string, Set<string>>; listed: Set<string> } | undefined;

/**
 * Whether `rule` concerns `operation` (`METHOD /template`), by the `x-rules` of spec/openapi.yaml
 * (a preflight's under the path's `x-cors-preflight`). A rule no operation lists (an error-body
 * or limit rule, say) may concern any.
 */
export function ruleConcerns(rule: string, operation: string): boolean {
  const scopes = ruleScopesOf();
  return !scopes.listed.has(rule) || ruleListedFor(rule, operation);
}

/** Whether spec/openapi.yaml lists the rule for this operation (a rule it lists nowhere is listed for none). */
export function ruleListedFor(rule: string, operation: string): boolean {
  return ruleScopesOf().byOperation.get(operation)?.has(rule) ?? false;
}

/**
 * Whether spec/openapi.yaml lists the rule for an answer to this operation: of `status` where both
 * sides answered alike (ruleListedForAnswer), else for any answer of the operation (statuses that
 * differ are the operation's as a whole).
 */
export function ruleListedAt(rule: string, operation: string, status: string | undefined): boolean {
  return status === undefined ? ruleListedFor(rule, operation) : ruleListedForAnswer(rule, operation, status);
}

/** ruleConcerns for an answer of `status` (ruleListedAt): TOK-NO-STORE concerns a token response, not a refusal. */
export function ruleConcernsAnswer(rule: string, operation: string, status: string | undefined): boolean {
  return !ruleScopesOf().listed.has(rule) || ruleListedAt(rule, operation, status);
}

/** The rules a response names: its own `x-rules`, its headers', its body schema's (through `$ref`, `anyOf`, `oneOf`, `allOf`). */
function rulesOfResponse(response: Node): Set<string> {
  const out = new Set<string>();
  const seen = new Set<unknown>();
  const take = (node: Node) => {
    const at = resolve(node);
    if (!at || typeof at !== 'object' || seen.has(at)) return;
    seen.add(at);
    if (Array.isArray(at['x-rules'])) for (const rule of at['x-rules'] as unknown[]) out.add(String(rule));
    for (const branch of ['anyOf', 'oneOf', 'allOf'])
      if (Array.isArray(at[branch])) for (const b of at[branch] as Node[]) take(b);
  };
  take(response);
  const r = resolve(response);
  for (const header of Object.values((r?.headers ?? {}) as Record<string, Node>)) take(header);
  for (const media of Object.values((r?.content ?? {}) as Record<string, Node>)) take(media?.schema as Node);
  return out;
}

/** By `METHOD /template STATUS`: the rules spec/openapi.yaml lists for that operation's answers of that status. */
const answerRules = new Map<string, Set<string>>();
/** Operations and statuses are the target's to vary: the memo stays bounded. */
const MAX_ANSWER_RULES = 1_000;

/**
 * Whether spec/openapi.yaml lists the rule for an answer of `status` to this operation: a rule of
 * the operation that one of its responses names (its `x-rules`, a header's, its body schema's) is
 * listed for the answers of those responses alone (TOK-NO-STORE for a token response, not a
 * refusal, by its Cache-Control header); the operation's others for every answer.
 */
export function ruleListedForAnswer(rule: string, operation: string, status: string): boolean {
  const key = `${operation} ${status}`;
  let listed = answerRules.get(key);
  if (!listed) {
    const own = ruleScopesOf().byOperation.get(operation) ?? new Set<string>();
    const named = new Set(Object.values(responsesOf(operation)).flatMap((r) => [...rulesOfResponse(r)]));
    const here = rulesOfResponse(responseOf(operation, status));
    listed = new Set([...own].filter((r) => !named.has(r) || here.has(r)));
    if (answerRules.size < MAX_ANSWER_RULES) answerRules.set(key, listed);
  }
  return listed.has(rule);
}

function ruleScopesOf() {
  if (!ruleScopes) {
    const byOperation = new Map<string, Set<string>>();
    const add = (key: string, rules: readonly string[]) =>
      byOperation.set(key, new Set([...(byOperation.get(key) ?? []), ...rules]));
    for (const op of operations()) add(`${op.method.toUpperCase()} ${op.path}`, op.rules);
    for (const preflight of corsPreflights()) add(`OPTIONS ${preflight.path}`, preflight.rules);
    ruleScopes = { byOperation, listed: new Set([...byOperation.values()].flatMap((rules) => [...rules])) };
  }
  return ruleScopes;
}

let ruleTexts: Map<string, string> | undefined;

/** A name's character: a word of the rule's text ends where none follows. */
const NAME_CHAR = /[\w-]/;

/**
 * Does the rule's sentence (its title or statement in spec/rules.yaml) name this member or header:
 * `refresh_token` for `$.refresh_token`, `scopes` for `$.scopes[]`, `Cache-Control` for
 * `cache-control`, as a whole word, in any case? A scan of a short text, no pattern built per name.
 */
export function ruleNames(rule: string, subject: string): boolean {
  ruleTexts ??= new Map(rules().map((r) => [r.id, `${r.title} ${r.statement}`.toLowerCase()]));
  const text = ruleTexts.get(rule);
  const name = (subject.startsWith('$') ? subject.replace(/\[\]/g, '').split('.').at(-1)! : subject).toLowerCase();
  if (!text || !name) return false;
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = at > 0 ? text[at - 1] : ' ';
    const after = text[at + name.length] ?? ' ';
    if (!NAME_CHAR.test(before) && !NAME_CHAR.test(after)) return true;
  }
  return false;
}

let closedLists: Set<string> | undefined;

type Body = { properties?: object; additionalProperties?: unknown; maxProperties?: unknown; 'x-rules'?: unknown };

/**
 * Does the rule's sentence list every member a body may have ("returns only access_token,
 * token_type and expires_in", "the body {}")? By spec/openapi.yaml: a schema that admits no member
 * of the target's choosing (`additionalProperties: false`, `maxProperties: 0`) lists the rule in
 * its `x-rules`, and the sentence names each of the schema's members and none of those only the
 * bodies beside it in an `anyOf` have (TOK-REFRESH-TOKEN-ABSENT names refresh_token: it is about
 * that one). A member such a rule does not name is what breaks it, not one beside what it names.
 */
export function ruleListsEveryMember(rule: string): boolean {
  closedLists ??= findClosedLists();
  return closedLists.has(rule);
}

function findClosedLists(): Set<string> {
  const schemas = (openapi().components?.schemas ?? {}) as Record<string, Body & { anyOf?: { $ref?: string }[] }>;
  const membersOf = (name: string) => Object.keys(schemas[name]?.properties ?? {});
  // By schema: the members of the bodies beside it in an anyOf (the other grants' token responses).
  const beside = new Map<string, Set<string>>();
  for (const { anyOf } of Object.values(schemas)) {
    const names = (anyOf ?? []).map((b) => b.$ref?.split('/').at(-1) ?? '');
    for (const name of names)
      beside.set(name, new Set([...(beside.get(name) ?? []), ...names.filter((n) => n !== name).flatMap(membersOf)]));
  }
  const out = new Set<string>();
  for (const [name, body] of Object.entries(schemas)) {
    if (body.additionalProperties !== false && body.maxProperties !== 0) continue;
    const own = membersOf(name);
    const others = [...(beside.get(name) ?? [])].filter((m) => !own.includes(m));
    const listed = Array.isArray(body['x-rules']) ? (body['x-rules'] as string[]) : [];
    for (const rule of listed)
      if (own.every((m) => ruleNames(rule, `$.${m}`)) && !others.some((m) => ruleNames(rule, `$.${m}`))) out.add(rule);
  }
  return out;
}
