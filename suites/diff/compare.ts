/**
 * The diff proper: pair the target's exchanges with the reference's (per check, per operation,
 * in order), compare each pair's shapes, and link each difference to the rules whose failed
 * assertions concerned the exchange that showed it (and that spec/openapi.yaml lists for its
 * operation); tell apart what the spec allows. Pure functions of recorded shapes and the report.
 */
import type { CheckResult, Difference, DiffSection, Exchange, NotCompared, Report } from '../report/model.js';
import { CONTROL_PREFIX } from '../drivers/simulator.js';
import { SETUP } from '../runner/run.js';
import {
  ruleConcerns,
  ruleConcernsAnswer,
  ruleListedAt,
  ruleListedFor,
  ruleListsEveryMember,
  ruleNames,
} from './operation.js';
import { shapeOf, type ExchangeShape, type Mask } from './shape.js';

/** Bounds of one side's recording, and of the report: memory stays flat whatever the target sends. */
export const MAX_EXCHANGES = 20_000;
export const MAX_DIFFERENCES = 500;
const CHECKS_NAMED = 5;
/** Rules named per allowed or unjudged difference at most. */
const RULES_NAMED = 3;
/** The pagination headers, compared by what their values say (suites/diff/pagination.ts). */
const PAGINATION_HEADERS = new Set([
  'link',
  'x-page',
  'x-per-page',
  'x-total',
  'x-total-pages',
  'x-next-page',
  'x-prev-page',
]);
/** Bounds of the not-compared list: reasons, the operations of each, a reason's length. */
const MAX_REASONS = 50;
const MAX_OPERATIONS = 40;
const MAX_REASON_CHARS = 300;

export interface Recording {
  /** Shapes by check id, in the order they were sent. */
  readonly byCheck: Map<string, ExchangeShape[]>;
  /** Failed assertions by check id: their rules and the exchanges they may be about, [from, to). */
  readonly failures: Map<string, Failure[]>;
  readonly total: number;
  /** Exchanges past MAX_EXCHANGES, not kept. */
  readonly dropped: number;
  /**
   * `housekeeping`: the harness revoking its tokens (compared when paired, never counted as sent or
   * not). `mask`: the run's redactor, which every name the target chose goes through (shapeOf).
   */
  add(checkId: string, exchange: Exchange, housekeeping?: boolean, mask?: Mask): void;
  /** An assertion of the check, judged after the exchanges added so far (runner `onAssertion`). */
  judge(checkId: string, rules: readonly string[], held: boolean): void;
}

export interface Failure {
  rules: readonly string[];
  from: number;
  to: number;
}

const isControl = (url: string) => {
  try {
    return new URL(url, 'http://x').pathname.startsWith(`${CONTROL_PREFIX}/`);
  } catch {
    return false;
  }
};

const addTo = (list: string[] | undefined, rules: readonly string[]) => [...new Set([...(list ?? []), ...rules])];

/**
 * Normalises each exchange as it comes and keeps only its shape (no value; the names the target
 * chose masked by the run that sent it). A held assertion accepts the answer just before it. A
 * failed one may be about any exchange since the check's previous failure (a check often sends,
 * then asserts premises, then judges what it sent): diffRecordings decides which of them it
 * concerns. Exchanges sent after a check's first failure are its consequences, marked so.
 */
export function createRecording(limit = MAX_EXCHANGES): Recording {
  const byCheck = new Map<string, ExchangeShape[]>();
  const failures = new Map<string, Failure[]>();
  let failureCount = 0;
  let total = 0;
  let dropped = 0;
  return {
    byCheck,
    failures,
    get total() {
      return total;
    },
    get dropped() {
      return dropped;
    },
    add(checkId, exchange, housekeeping = false, mask) {
      // The simulator's control API is the harness's oracle where a target has one, not the target's answers.
      if (isControl(exchange.request.url)) return;
      if (total >= limit) {
        dropped++;
        return;
      }
      total++;
      const list = byCheck.get(checkId) ?? [];
      const shape = shapeOf(exchange, mask);
      if (failures.has(checkId)) shape.afterFailure = true;
      if (housekeeping) shape.housekeeping = true;
      list.push(shape);
      byCheck.set(checkId, list);
    },
    judge(checkId, rules, held) {
      const list = byCheck.get(checkId);
      if (!list?.length) return;
      if (held) {
        list[list.length - 1].accepted = addTo(list[list.length - 1].accepted, rules);
        return;
      }
      const seen = failures.get(checkId) ?? [];
      const previous = seen[seen.length - 1];
      // Nothing sent since the previous failure: this one is about the same answer.
      const failure = { rules: [...rules], from: Math.min(previous?.to ?? 0, list.length - 1), to: list.length };
      const again = previous && previous.to === failure.to && previous.rules.join() === failure.rules.join();
      // A property repeats its failing assertion on every case it shrinks: a bounded record.
      if (!again && failureCount < limit) {
        failureCount++;
        seen.push(failure);
      }
      failures.set(checkId, seen);
    },
  };
}

type Found = Pick<Difference, 'kind' | 'subject' | 'target' | 'reference'>;

/** A failure no difference in shape shows: the answer is alike, a value inside it is not. */
const INSIDE_A_VALUE: Found = {
  kind: 'value',
  subject: '(a value inside the answer)',
  target: 'breaks the rule',
  reference: 'alike in shape',
};

/** A difference by what the target did (the member or header and the target's side), whatever the reference did. */
const sameAs = (a: Found) => [a.kind, a.subject, a.target].join('\u0000');

/**
 * The rules each difference is linked to among `entries` (by sameAs); the returned function gives,
 * for the same difference at `operation` in answers of `status` (where both sides answered alike),
 * those of its rules that concern such an answer: a token response's missing Cache-Control broke
 * TOK-NO-STORE, the same header missing from a refusal is not that rule's (ruleConcernsAnswer).
 */
function linkedCauses(entries: ReadonlyArray<{ found: Found; rules: readonly string[] }>) {
  const causes = new Map<string, string[]>();
  for (const e of entries) if (e.rules.length) causes.set(sameAs(e.found), addTo(causes.get(sameAs(e.found)), e.rules));
  return (found: Found, operation: string, status: string | undefined) =>
    (causes.get(sameAs(found)) ?? []).filter((r) => ruleConcernsAnswer(r, operation, status));
}

/** The spec's document, where the answer matches it (suites/diff/conforms.ts). */
export const ALLOWED_BY_SCHEMA = 'spec/openapi.yaml';

const ABSENT = 'absent';

/** The links of a Link shape (`rel=next(page,per_page) …`, sorted) as [relation, parameter names]. */
const linksOf = (shape: string): (readonly [string, readonly string[]])[] =>
  shape.split(' ').map((link) => {
    const open = link.indexOf('(');
    if (!link.startsWith('rel=') || open < 0 || !link.endsWith(')')) return [link, []] as const;
    return [
      link.slice(4, open),
      link
        .slice(open + 1, -1)
        .split(',')
        .filter(Boolean),
    ] as const;
  });

/**
 * Pagination links that keep every parameter the reference's keep, and add some (a front's own
 * `via`), are the same links: a client follows them as given (PAG-LINK-FOLLOW). One dropped is not.
 */
function sameLinks(target: string, reference: string): boolean {
  const [t, r] = [linksOf(target), linksOf(reference)];
  return (
    t.length === r.length && r.every(([rel, params], i) => t[i][0] === rel && params.every((p) => t[i][1].includes(p)))
  );
}

/** The members holding a member path, innermost first: `$.a.b[].c` → `$.a.b[]`, `$.a.b`, `$.a`. */
function holders(path: string): string[] {
  const out: string[] = [];
  for (let p = path; ;) {
    const cut = p.endsWith('[]') ? p.length - 2 : p.lastIndexOf('.');
    if (cut <= 1) return out;
    out.push((p = p.slice(0, cut)));
  }
}

function compareMaps(
  kind: 'member' | 'header',
  target: Record<string, string>,
  reference: Record<string, string>,
): Found[] {
  const out: Found[] = [];
  for (const subject of [...new Set([...Object.keys(target), ...Object.keys(reference)])].sort()) {
    const t = target[subject];
    const r = reference[subject];
    if (t === r) continue;
    // A member missing inside a member missing on the same side is that one difference (`$.x` absent
    // says `$.x[]` and `$.x.y` are too: review 23 saw two rows for one missing array).
    if (kind === 'member' && holders(subject).some((h) => (t === undefined ? target : reference)[h] === undefined))
      continue;
    if (kind === 'header' && subject === 'link' && t !== undefined && r !== undefined && sameLinks(t, r)) continue;
    // Present on one side only is a member difference; present on both with other types, a type one.
    const k = kind === 'member' && t !== undefined && r !== undefined ? 'type' : kind;
    out.push({ kind: k, subject, target: t ?? ABSENT, reference: r ?? ABSENT });
  }
  return out;
}

/**
 * What differs in one pair. Different statuses are one difference (and the error code): the body
 * and headers of a 400 and a 200 differ because the statuses do, which says nothing more. So is a
 * body of another kind (empty, an HTML page or text where the other is JSON, an array for an
 * object): its members, its missing error code and its Content-Type differ because it does.
 */
export function compareShapes(target: ExchangeShape, reference: ExchangeShape): Found[] {
  const out: Found[] = [];
  const otherStatus = target.status !== reference.status;
  const otherBody = target.members.$ !== reference.members.$;
  if (otherStatus) out.push({ kind: 'status', subject: 'status', target: target.status, reference: reference.status });
  // A code in one body of two kinds is the bodies' difference, said once as `$`.
  if (target.error !== reference.error && (otherStatus || !otherBody))
    out.push({ kind: 'error', subject: 'error', target: target.error ?? ABSENT, reference: reference.error ?? ABSENT });
  if (otherStatus) return out;
  if (target.location !== reference.location)
    out.push({
      kind: 'location',
      subject: 'location',
      target: target.location ?? ABSENT,
      reference: reference.location ?? ABSENT,
    });
  // The body's `error` member is the error code, already compared; a body of another kind is its `$` alone.
  const members = compareMaps('member', target.members, reference.members);
  out.push(
    ...members.filter((d) =>
      otherBody ? d.subject === '$' : d.subject !== '$.error' || target.error === reference.error,
    ),
  );
  // Alike in shape, but the target's value breaks what the spec fixes there (a const, a bound). A
  // violation of the body itself (`$`: no branch of an anyOf matched) names no member, so where a
  // member differs that member is why: one cause, one row.
  const explained = (path: string) =>
    out.some((d) => d.subject === path || (path === '$' && (d.kind === 'member' || d.kind === 'type')));
  if (target.violation && reference.conforms && !explained(target.violation))
    out.push({ kind: 'value', subject: target.violation, target: 'not as documented', reference: 'as documented' });
  // The media type of a body of another kind is that body's.
  out.push(
    ...compareMaps('header', target.headers, reference.headers).filter(
      (d) => !otherBody || d.subject !== 'content-type',
    ),
  );
  return out;
}

/** Pairs by operation and order: the i-th `POST /oauth/token` of a check with the other's i-th. */
export function pairShapes(
  target: readonly ExchangeShape[],
  reference: readonly ExchangeShape[],
): { pairs: [ExchangeShape, ExchangeShape][]; onlyTarget: ExchangeShape[]; onlyReference: ExchangeShape[] } {
  const queue = new Map<string, ExchangeShape[]>();
  for (const shape of reference) queue.set(shape.operation, [...(queue.get(shape.operation) ?? []), shape]);
  const pairs: [ExchangeShape, ExchangeShape][] = [];
  const onlyTarget: ExchangeShape[] = [];
  for (const shape of target) {
    const match = queue.get(shape.operation)?.shift();
    if (match) pairs.push([shape, match]);
    else onlyTarget.push(shape);
  }
  return { pairs, onlyTarget, onlyReference: [...queue.values()].flat() };
}

/** The rules a check's result broke on the target; none when it passed (or never ran). */
function brokenBy(result: CheckResult | undefined): string[] {
  if (!result || !['failed', 'warned', 'expected'].includes(result.status)) return [];
  return result.broken ?? result.rules;
}

/** `undocumented`: the answer breaks the schema spec/openapi.yaml documents for it, so no row holding it is allowed. */
type Judged = { rules: string[]; allowed?: string; undocumented?: boolean };

/**
 * How a difference seen in target exchange `t` and not linked to a failure is judged: allowed
 * when the answer matches the spec's documented schema (a member or type) or when assertions
 * judged `t` and held (the suites accept the variation: the source allows it); else no rule
 * covers it (or one left out of the run: see unjudgedBy).
 */
function unlinked(found: Found, t: ExchangeShape | undefined): Judged {
  if (!t) return { rules: [] };
  const onMembers = found.kind === 'member' || found.kind === 'type' || found.kind === 'value';
  if (onMembers && t.conforms !== undefined)
    return t.conforms ? { rules: [], allowed: ALLOWED_BY_SCHEMA } : { rules: [], undocumented: true };
  return t.accepted?.length ? { rules: [], allowed: acceptedBy(found, t.accepted) } : { rules: [] };
}

/**
 * The rules that judged this very difference and held, as an allowed row says them: those of the
 * assertions that judged its answer which name its member or header, else all of them; at most
 * RULES_NAMED, and how many more (a token response is judged by a dozen rules: a list tells nothing).
 */
function acceptedBy(found: Found, accepted: readonly string[]): string {
  const naming = aboutAName(found) ? accepted.filter((r) => ruleNames(r, found.subject)) : [];
  const rules = naming.length ? naming : accepted;
  const more = rules.length - RULES_NAMED;
  return `${rules.slice(0, RULES_NAMED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** Does an allowed row name a rule whose sentence names its member or header (acceptedBy lists those first)? */
const allowedByName = (d: Difference) =>
  d
    .allowed!.replace(/ and \d+ more$/, '')
    .split(', ')
    .some((r) => ruleNames(r, d.subject));

/** A difference about one member (not the body itself, `$`) or header, which a rule's sentence can name; the rest concern the whole answer. */
const aboutAName = (f: Found) =>
  f.kind === 'header' || ((f.kind === 'member' || f.kind === 'type') && f.subject !== '$');

/**
 * The differences of an answer a failure of `rules` is about. Not a member or header difference
 * the rules do not name where they name another that differs (Cache-Control missing is
 * TOK-NO-STORE's, not an extra `x_region` beside it), or a name the answer carries alike (a
 * Content-Type whose charset broke ENC-JSON-CONTENT-TYPE: a value a shape does not show, not the
 * members beside it), or where the answer differs as a whole (its status, error code, body type,
 * where it redirects: a slow_down poll answered authorization_pending broke DEV-SLOW-DOWN by its
 * code, not by the Vary beside it); those are judged as if unlinked. Where the rules name nothing
 * of an answer that differs only in members and headers, each is: which one cannot be told. A
 * rule that lists every member its body may have (ruleListsEveryMember: "returns only access_token,
 * token_type and expires_in") also takes each member the target added: that is what breaks it.
 */
function blamedIn(answer: readonly Found[], rules: readonly string[], t: ExchangeShape): Found[] {
  const names = (subject: string) => rules.some((r) => ruleNames(r, subject));
  // A member inside one the rules name is theirs too (`$.keys[].d` of OIDC-JWKS's key set).
  const named = new Set(answer.filter((f) => aboutAName(f) && pathsTo(f.subject).some(names)));
  // A rule that lists every member the body may have is broken by one it does not name (review 30).
  const closed = rules.some(ruleListsEveryMember);
  // A value the spec fixes is about the members below its path, which may be these.
  const whole = (f: Found) => !aboutAName(f) && f.kind !== 'value';
  // Read once an answer (its names are the target's, 300 members at most), not once a difference.
  const beside =
    named.size > 0 ||
    answer.some(whole) ||
    Object.keys(t.headers).some(names) ||
    Object.keys(t.members).some((path) => path !== '$' && names(path));
  return beside ? answer.filter((f) => !aboutAName(f) || named.has(f) || (closed && added(f))) : [...answer];
}

/** A member of the body itself the target's answer has and the reference's lacks. */
const added = (f: Found) =>
  f.kind === 'member' && f.reference === ABSENT && f.subject !== '$' && !holders(f.subject).length;

/** A member path and the paths of the members holding it (`$.keys[].d`, `$.keys[]`); a header's name alone. */
const pathsTo = (subject: string) =>
  subject.startsWith('$.')
    ? subject
        .split('.')
        .slice(1)
        .map((_, i, parts) => `$.${parts.slice(0, parts.length - i).join('.')}`)
    : [subject];

/** The indices [from, to). */
const span = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/**
 * The status of target answer `i` where the reference answered it alike (the rules of that status
 * judge it: ruleListedAt); none where the statuses differ or the reference sent nothing to pair.
 */
function statusOf(list: readonly ExchangeShape[], answers: ReadonlyMap<number, readonly Found[]>, i: number) {
  const whole = answers.get(i)?.some((f) => f.kind === 'status' || f.kind === 'exchange');
  return whole ? undefined : list[i].status;
}

/**
 * The answer a failed assertion of `rules` judged, the one it quoted: the last in its reach that
 * spec/openapi.yaml lists its rules for, at its status (a check may send more before it judges: a
 * refusal after the token response TOK-NO-STORE judged), else at its operation, unless that one is
 * alike and a later one differs (a revoked token still accepted by the oracle asked after the
 * revocation); else the last it reached, the answer nearest the failure.
 */
function quotedBy(
  list: readonly ExchangeShape[],
  failure: Failure,
  rules: readonly string[],
  answers: ReadonlyMap<number, readonly Found[]>,
): number | undefined {
  const sent = span(failure.from, Math.min(failure.to, list.length));
  const listed =
    sent.filter((i) => rules.some((r) => ruleListedAt(r, list[i].operation, statusOf(list, answers, i)))).at(-1) ??
    sent.filter((i) => rules.some((r) => ruleListedFor(r, list[i].operation))).at(-1);
  const last = sent.at(-1);
  return listed !== undefined && (answers.has(listed) || !answers.has(last!)) ? listed : last;
}

/**
 * The rules each failed assertion links to the differences it saw: by target answer (index), by
 * difference (sameAs). An assertion judged one answer, the one it quoted (quotedBy). Each difference of that answer is linked to its rules, save a member or header
 * beside the ones they name (blamedIn, rule by rule: two rules failed on one answer blame each
 * its own member). An earlier answer in its reach (one a held assertion judged, one sent on the
 * way) is linked only by a member or header the rules name: a difference nobody judged there is
 * not this failure's. Where the rules name none of the operations in reach, the same difference on
 * another one (a revoked token still accepted by each oracle the check asked) is the same answer
 * to the same question: the failure concerns it too.
 */
function linkFailures(
  list: readonly ExchangeShape[],
  failures: readonly Failure[],
  answers: ReadonlyMap<number, readonly Found[]>,
  broken: readonly string[],
): Map<number, Map<string, string[]>> {
  const linked = new Map<number, Map<string, string[]>>();
  const link = (i: number, found: Found, rules: readonly string[]) => {
    const at = linked.get(i) ?? new Map<string, string[]>();
    at.set(sameAs(found), addTo(at.get(sameAs(found)), rules));
    linked.set(i, at);
  };
  for (const failure of failures) {
    const rules = failure.rules.filter((r) => broken.includes(r));
    if (!rules.length) continue;
    const sent = span(failure.from, Math.min(failure.to, list.length));
    const quoted = quotedBy(list, failure, rules, answers);
    const answer = (quoted !== undefined && answers.get(quoted)) || [];
    const blamed = quoted === undefined ? [] : blamedIn(answer, rules, list[quoted]);
    for (const found of blamed) link(quoted!, found, rules);
    // Per answer and status: an earlier refusal in reach is no answer of TOK-NO-STORE's.
    const concerned = (i: number) =>
      rules.some((r) => ruleConcernsAnswer(r, list[i].operation, statusOf(list, answers, i)));
    const reach = sent.filter((i) => answers.has(i));
    for (const i of reach.filter((i) => i !== quoted && concerned(i)))
      for (const found of answers.get(i)!) {
        const naming = aboutAName(found) ? rules.filter((r) => ruleNames(r, found.subject)) : [];
        if (naming.length) link(i, found, naming);
      }
    // The answer quoted is alike in shape: the assertion judged a value in it, or an answer it
    // reached before (a check that sends its probes, then judges each). Not one the check judged on
    // the spot and held; any other of an operation its rules concern, or that it judged last, may be.
    if (!answer.length)
      for (const i of reach) {
        const likeQuoted =
          list[i].operation === list[quoted!].operation &&
          statusOf(list, answers, i) === statusOf(list, answers, quoted!);
        if (list[i].accepted?.length || !(concerned(i) || likeQuoted)) continue;
        for (const found of blamedIn(answers.get(i)!, rules, list[i])) link(i, found, rules);
      }
    // Where its rules concern an operation in reach (at any status), the failure is about that one.
    if (reach.some((i) => rules.some((r) => ruleConcerns(r, list[i].operation)))) continue;
    const same = new Set(blamed.map(sameAs));
    for (const i of reach)
      if (i !== quoted) for (const found of answers.get(i)!) if (same.has(sameAs(found))) link(i, found, rules);
  }
  return linked;
}

export interface DiffInput {
  target: Recording;
  reference: Recording;
  /** The target run's check results: a difference is linked only to rules its check broke. */
  results: readonly CheckResult[];
  /** The reference run's: a check it ran to no verdict is not compared either. */
  referenceResults?: readonly CheckResult[];
  /** Why the target run stopped early (a wall, an outage, silence), if it did. */
  stopped?: Report['stopped'];
  referenceName: string;
  /** What the reference's configuration read from the target (suites/diff/profile.ts). */
  read?: string[];
  /** Rules that only checks the selection left out prove (--suite, --rule, --check): they did not judge. */
  leftOut?: readonly string[];
}

/**
 * The rules left out of the run that would have judged a difference no check run covered: those
 * spec/openapi.yaml lists for its operation, and for the status of the answers that showed it
 * (ruleListedForAnswer: TOK-NO-STORE judges a token response, not a refusal), whose sentence names
 * its member or header. None: no rule covers it, as far as the spec says (a rule of the operation
 * that names none of it would judge the answer, not this difference; one that lists every member
 * judges a member added).
 */
function unjudgedBy(d: Difference, status: string | undefined, leftOut: readonly string[]): string[] {
  return leftOut
    .filter(
      (r) => ruleListedAt(r, d.operation, status) && (ruleNames(r, d.subject) || (added(d) && ruleListsEveryMember(r))),
    )
    .slice(0, RULES_NAMED);
}

/** A row of one difference at one status (none: the statuses differ), before statuses judged alike are merged. */
interface AtStatus {
  row: Difference;
  status?: string;
  /** An answer in it breaks its documented schema: allowed by none. */
  undocumented?: boolean;
}

/** A check run to no verdict: its premise was missing (skipped), or the harness could not finish it (errored). */
const noVerdict = (result: CheckResult | undefined) => result?.status === 'skipped' || result?.status === 'errored';

/** Why a check is not compared: the message of the side that had no verdict, its first line, bounded. */
function reasonOf(onTarget: CheckResult | undefined, onReference: CheckResult | undefined): string {
  const side = noVerdict(onTarget) ? onTarget! : onReference!;
  const said = (side.message ?? side.status).split('\n')[0];
  const text = side === onTarget ? said : `on the reference: ${said}`;
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}

export function diffRecordings({
  target,
  reference,
  results,
  referenceResults = [],
  referenceName,
  read,
  stopped,
  leftOut = [],
}: DiffInput): DiffSection {
  const resultOf = new Map(results.map((r) => [r.id, r]));
  const referenceOf = new Map(referenceResults.map((r) => [r.id, r]));
  // By difference and the status of the answers that showed it (where both sides answered it
  // alike): each status is judged by its own documented answer, then rows judged alike are merged.
  const grouped = new Map<string, AtStatus>();
  const notCompared = new Map<string, NotCompared>();
  const uncompared = new Set<string>();
  // Judged differences in the order seen; noted once the whole run is known (set-up ones depend on it).
  const pending: {
    checkId: string;
    operation: string;
    found: Found;
    /** Of the answers that showed it, where the target's and the reference's were alike. */
    status?: string;
    rules: string[];
    allowed?: string;
    undocumented?: boolean;
    /** The check failed on the target. */
    broken: boolean;
  }[] = [];
  // Each failed assertion of a check that broke its rules: where it judged, and which rules.
  const failed: { checkId: string; operation: string; rules: string[]; broken: boolean }[] = [];
  let paired = 0;
  // Rows one answer of which breaks its documented schema: allowed by none (review 30: a revocation's
  // 200 `{x}` beside a 400 error body that may carry `x` read "allowed (spec/openapi.yaml) (2×)").
  const undocumentedIn = new Set<string>();
  const note = (
    checkId: string,
    operation: string,
    found: Found,
    status: string | undefined,
    rules: string[],
    judged: Omit<Judged, 'rules'>,
  ) => {
    const id = [operation, found.kind, found.subject, found.target, found.reference, status ?? ''].join('\u0000');
    if (judged.undocumented) undocumentedIn.add(id);
    const allowed = undocumentedIn.has(id) ? undefined : judged.allowed;
    const seen = grouped.get(id)?.row;
    if (!seen) {
      const row = { operation, ...found, rules, ...(allowed ? { allowed } : {}), checks: [checkId], count: 1 };
      grouped.set(id, { row, ...(status !== undefined ? { status } : {}) });
      return;
    }
    seen.count++;
    seen.rules = [...new Set([...seen.rules, ...rules])];
    // Allowed where a pair that showed it was judged and held, and none broke a rule or its schema:
    // an unjudged repeat (a set-up exchange, an answer before the one judged) is the same difference.
    // The row names the first pair's judges, not a union of every pair's (each judged by other checks).
    if (seen.rules.length || undocumentedIn.has(id)) delete seen.allowed;
    else if (allowed) seen.allowed ??= allowed;
    if (seen.checks.length < CHECKS_NAMED && !seen.checks.includes(checkId)) seen.checks.push(checkId);
  };
  const checkIds = [...new Set([...target.byCheck.keys(), ...reference.byCheck.keys()])];
  // Stopped before its first check, the target's set-up was cut short too: what it did not ask (or
  // asked and got a wall for) is the stop's, said once with the checks it left untested.
  const setupCut = stopped !== undefined && results.every((r) => r.message === stopped.message);
  for (const checkId of checkIds) {
    if (checkId === SETUP && setupCut) continue;
    const list = target.byCheck.get(checkId) ?? [];
    // A premise missing on one side: reported once, by the check that owns it; what rested on it is
    // not compared (the other side's exchanges are no finding), and says why.
    if (checkId !== SETUP && (noVerdict(resultOf.get(checkId)) || noVerdict(referenceOf.get(checkId)))) {
      const reason = reasonOf(resultOf.get(checkId), referenceOf.get(checkId));
      const operations = [...list, ...(reference.byCheck.get(checkId) ?? [])]
        .filter((s) => !s.housekeeping)
        .map((s) => s.operation);
      for (const operation of operations) uncompared.add(operation);
      const entry = notCompared.get(reason);
      if (entry) {
        if (!entry.checks.includes(checkId)) entry.checks.push(checkId);
        entry.operations = [...new Set([...entry.operations, ...operations])].slice(0, MAX_OPERATIONS);
      } else if (notCompared.size < MAX_REASONS)
        notCompared.set(reason, {
          reason,
          checks: [checkId],
          operations: [...new Set(operations)].slice(0, MAX_OPERATIONS),
        });
      continue;
    }
    const broken = brokenBy(resultOf.get(checkId));
    const { pairs, onlyTarget, onlyReference } = pairShapes(list, reference.byCheck.get(checkId) ?? []);
    paired += pairs.length;
    const seen: { operation: string; found: Found; t?: ExchangeShape; status?: string }[] = [];
    for (const [t, r] of pairs)
      for (const found of compareShapes(t, r))
        seen.push({ operation: t.operation, found, t, ...(t.status === r.status ? { status: t.status } : {}) });
    // How many tokens the harness revokes after a check follows from what the target handed out.
    for (const t of onlyTarget.filter((shape) => !shape.housekeeping))
      seen.push({
        operation: t.operation,
        found: { kind: 'exchange', subject: 'exchange', target: 'sent', reference: 'not sent' },
        t,
      });
    // A check that failed on the target stopped there: what it did not send after is no finding.
    if (!broken.length)
      for (const r of onlyReference.filter((shape) => !shape.housekeeping))
        seen.push({
          operation: r.operation,
          found: { kind: 'exchange', subject: 'exchange', target: 'not sent', reference: 'sent' },
        });
    const index = new Map(list.map((shape, i) => [shape, i]));
    // Each answer's differences, gathered once (an answer of the target: the others have no link).
    const answers = new Map<number, Found[]>();
    for (const s of seen) if (s.t) answers.set(index.get(s.t)!, [...(answers.get(index.get(s.t)!) ?? []), s.found]);
    const linked = linkFailures(list, target.failures.get(checkId) ?? [], answers, broken);
    for (const failure of target.failures.get(checkId) ?? []) {
      const rules = failure.rules.filter((r) => broken.includes(r));
      const at = quotedBy(list, failure, rules, answers);
      if (rules.length && at !== undefined)
        failed.push({ checkId, operation: list[at].operation, rules, broken: true });
    }
    // A failure no assertion recorded (the harness's own guard refused a link off the target's
    // origin): at the last answer of an operation its rules concern, else the check's last.
    if (broken.length && !target.failures.get(checkId)?.length && list.length) {
      const concerned = list.filter((shape) => broken.some((r) => ruleConcerns(r, shape.operation)));
      const { operation } = (concerned.length ? concerned : list).at(-1)!;
      failed.push({ checkId, operation, rules: [...broken], broken: true });
    }
    const judged = seen.map((s) => {
      const rules = s.t ? linked.get(index.get(s.t)!)?.get(sameAs(s.found)) : undefined;
      const judgedAs: Judged = rules ? { rules } : unlinked(s.found, s.t);
      return { ...s, ...judgedAs };
    });
    // The same difference (the same member or header, the target's side alike) where the check's
    // failed assertion did not look, say on another collection, has the cause it judged elsewhere.
    const causeOf = linkedCauses(judged);
    for (const j of judged) {
      const rules = j.rules.length ? j.rules : causeOf(j.found, j.operation, j.status);
      // After a failure, what the check did differently follows from it: one cause, one blame.
      if (j.t?.afterFailure && !rules.length) continue;
      pending.push({
        checkId,
        operation: j.operation,
        found: j.found,
        ...(j.status !== undefined ? { status: j.status } : {}),
        rules,
        allowed: j.allowed,
        undocumented: j.undocumented,
        broken: broken.length > 0,
      });
    }
  }
  // The same difference linked in another check, where its rule concerns the operation at that
  // status (one answer of the target's read by several checks): the same cause, not a second finding.
  const linkedAnywhere = linkedCauses(pending);
  for (const p of pending) if (!p.rules.length) p.rules = linkedAnywhere(p.found, p.operation, p.status);
  // A failed assertion whose rules no difference of its check shows broke a value diff does not
  // compare (a URL's host, a JWT's claims, a number): one row at the answer it judged, so the
  // deviation shows once, at its operation, with its rule.
  for (const f of failed) {
    const shown = new Set(pending.filter((p) => p.checkId === f.checkId).flatMap((p) => p.rules));
    const rules = f.rules.filter((r) => !shown.has(r));
    if (rules.length) pending.push({ ...f, rules, found: INSIDE_A_VALUE });
  }
  // A request more or fewer than the reference's in a check that failed, or at an operation whose
  // answer differed in the check for a linked cause (no next link, so no page after), follows from it.
  const linkedIn = new Set(pending.filter((p) => p.rules.length).map((p) => `${p.checkId} ${p.operation}`));
  const consequence = (p: (typeof pending)[number]) =>
    p.found.kind === 'exchange' && !p.rules.length && (p.broken || linkedIn.has(`${p.checkId} ${p.operation}`));
  // The pagination headers follow the same rules on every collection: a variation the suites
  // accepted on one is allowed where the same answer went unjudged (a collection only listed).
  const acceptedPaging = new Map<string, string>();
  const pagingKey = (p: (typeof pending)[number]) =>
    p.found.kind === 'header' && PAGINATION_HEADERS.has(p.found.subject)
      ? [p.found.subject, p.found.target, p.found.reference].join('\u0000')
      : undefined;
  for (const p of pending) {
    const key = pagingKey(p);
    if (key && p.allowed && !p.rules.length) acceptedPaging.set(key, p.allowed);
  }
  for (const p of pending) {
    const key = pagingKey(p);
    if (key && !p.allowed && !p.rules.length && acceptedPaging.has(key)) p.allowed = acceptedPaging.get(key);
  }
  // The session's own probes at an operation a check's failure concerns, or that is not compared,
  // found what that check reports (an endpoint missing, an API out of reach): no second row.
  const linkedAt = new Set(pending.filter((p) => p.checkId !== SETUP && p.rules.length).map((p) => p.operation));
  for (const p of pending) {
    if (p.checkId === SETUP && (linkedAt.has(p.operation) || uncompared.has(p.operation))) continue;
    if (consequence(p)) continue;
    // A check judged by other means where the premise is missing (another oracle than an API out
    // of reach) did not send what rested on it: listed as not compared, no difference.
    if (p.found.kind === 'exchange' && p.found.target === 'not sent' && uncompared.has(p.operation)) continue;
    note(p.checkId, p.operation, p.found, p.status, p.rules, p.rules.length ? {} : p);
  }
  // Not covered by the checks run is not "not covered by any rule" where the selection left its rules
  // out; nor "allowed" where the rules that held never named it and a rule left out does (a token
  // answer without Cache-Control is TOK-NO-STORE's to judge, not allowed by TOK-RESPONSE-JSON).
  for (const { row: d, status } of grouped.values()) {
    if (d.rules.length || (d.allowed && (d.allowed === ALLOWED_BY_SCHEMA || allowedByName(d)))) continue;
    const rules = unjudgedBy(d, status, leftOut);
    if (!rules.length) continue;
    d.unjudged = rules;
    delete d.allowed;
  }
  for (const [id, at] of grouped) if (undocumentedIn.has(id)) at.undocumented = true;
  const differences = mergeStatuses([...grouped.values()]).sort(
    (a, b) =>
      a.operation.localeCompare(b.operation) ||
      a.subject.localeCompare(b.subject) ||
      (a.status ?? '').localeCompare(b.status ?? ''),
  );
  const dropped = target.dropped + reference.dropped;
  return {
    reference: referenceName,
    ...(read ? { read } : {}),
    exchanges: { target: target.total, reference: reference.total, paired },
    differences: differences.slice(0, MAX_DIFFERENCES),
    ...(differences.length > MAX_DIFFERENCES ? { omitted: differences.length - MAX_DIFFERENCES } : {}),
    ...(dropped ? { unrecorded: dropped } : {}),
    ...(notCompared.size ? { notCompared: [...notCompared.values()] } : {}),
  };
}

/**
 * One row per difference where its answers of every status are judged alike, the status said by
 * none; else a row per judgement, each saying its statuses (review 30: a revocation's 200 `{x}`
 * that breaks its schema beside a 400 error body that may carry `x`; a rule left out that judges
 * the 200 alone). Linked is judged alike where linked to the same rules: a token response's
 * missing Cache-Control (TOK-NO-STORE) is not a refusal's (TOK-ERROR-NO-STORE, or none). A status
 * nothing judged, whose answers break no schema, is allowed with the statuses allowed (a set-up answer).
 */
function mergeStatuses(rows: readonly AtStatus[]): Difference[] {
  const byDifference = new Map<string, AtStatus[]>();
  for (const r of rows) {
    const { operation, kind, subject, target, reference } = r.row;
    const id = [operation, kind, subject, target, reference].join('\u0000');
    byDifference.set(id, [...(byDifference.get(id) ?? []), r]);
  }
  const out: Difference[] = [];
  for (const same of byDifference.values()) {
    const allowed = same.some((r) => r.row.allowed && !r.row.rules.length);
    const judgedAs = ({ row, undocumented }: AtStatus) =>
      row.rules.length
        ? `linked ${[...row.rules].sort().join()}`
        : row.allowed || (allowed && !row.unjudged && !undocumented)
          ? 'allowed'
          : row.unjudged
            ? 'unjudged'
            : 'uncovered';
    const byJudgement = new Map<string, AtStatus[]>();
    for (const r of same) byJudgement.set(judgedAs(r), [...(byJudgement.get(judgedAs(r)) ?? []), r]);
    for (const [judged, alike] of byJudgement) {
      const rows = alike.map((r) => r.row);
      const { operation, kind, subject, target, reference } = rows[0];
      const rules = rows.reduce<string[]>((all, row) => addTo(all, row.rules), []);
      const allowedAs = judged === 'allowed' ? rows.find((r) => r.allowed)?.allowed : undefined;
      const unjudged =
        judged === 'unjudged' ? rows.reduce<string[]>((all, row) => addTo(all, row.unjudged ?? []), []) : [];
      const checks: string[] = [];
      for (const checkId of rows.flatMap((row) => row.checks))
        if (checks.length < CHECKS_NAMED && !checks.includes(checkId)) checks.push(checkId);
      const statuses = [...new Set(alike.flatMap((r) => (r.status === undefined ? [] : [r.status])))].sort();
      const merged: Difference = {
        operation,
        kind,
        subject,
        target,
        reference,
        rules,
        ...(allowedAs ? { allowed: allowedAs } : {}),
        ...(unjudged.length ? { unjudged: unjudged.slice(0, RULES_NAMED) } : {}),
        ...(byJudgement.size > 1 && statuses.length ? { status: statuses.join(', ') } : {}),
        checks,
        count: rows.reduce((n, row) => n + row.count, 0),
      };
      out.push(merged);
    }
  }
  return out;
}

/** Whether a difference breaks a rule the target run failed: otherwise it is allowed, or no rule covers it yet. */
export const covered = (difference: Difference) => difference.rules.length > 0;
