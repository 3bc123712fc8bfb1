/** OpenID Connect helpers: the key set fetched through the run's Http, discovery, the openid application. */
import { createLocalJWKSet, type JSONWebKeySet, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import type { RuleId } from '../../spec/index.js';
import type { AppRole, Capabilities, CheckContext, FailureDetails, HttpResponse } from '../types.js';
import { reportedBy } from '../runner/reported-by.js';
import { broke, expectJsonType, jsonObject, KEYS_PATH } from '../shared/oauth.js';
import { DEFAULT_MAX_BODY_BYTES } from '../target/http.js';
import { expectRows } from '../shared/json.js';
import {
  factorableModulus,
  forgeableKey,
  judgeCost,
  SHARED_FACTOR,
  sharingModuli,
  smallOrderKey,
} from './forgeable.js';
import { EC_COST, isPoint, shortModulus, unreadablePoint } from './unusable.js';

/**
 * What the keys of one key set may cost to judge, besides the one a token names, in units of a
 * 2,048-bit modulus (costOf): sixteen such keys, two of 4,096 bits, or eighty Ed25519 points; a
 * larger modulus only when a token names it. A set of huge moduli stays cheap: the judging runs on
 * the run's one thread. The moduli judged are also the ones searched for a prime shared between two.
 */
const MODULI_BUDGET = 16;

export { KEYS_PATH, expectedIssuer, sameIssuer } from '../shared/oauth.js';
export { DISCOVERY_PATH, USERINFO_PATH } from '../shared/oauth.js';
export const LEGACY_JWKS_PATH = '/-/jwks';

/**
 * The key set as served, every key of it (jose's remote fetcher would bypass our Http: redaction,
 * rate limit, in-process target). What costs the same for each key (its members, shape, kid, use)
 * is judged for all of them, bounded by the size of the answer: of a set cut to its first hundred
 * keys, a key publishing its private exponent past the hundredth went unseen, and the same keys
 * reordered failed or passed OIDC-JWKS (review 10). The work that grows with a key is bounded
 * elsewhere: forgeability by keysToJudge's budget, verification by verifyJwt's candidates (90,000
 * Ed25519 keys each judged held the run's one thread for minutes: red team, round 7). A set
 * served elsewhere (the /-/jwks alias) breaks the `rule` that asks for it there. Its media type is
 * judged by the `owner` of that rule alone: a verifier can use a set served under another label,
 * and judging it there blamed OIDC-JWKS twice (review 29).
 */
export async function fetchJwks(
  t: CheckContext,
  { path = KEYS_PATH, rule = 'OIDC-JWKS', owner = false }: { path?: string; rule?: RuleId; owner?: boolean } = {},
): Promise<JSONWebKeySet> {
  const res = await t.http.get(path);
  const body = parsedSet(t, res);
  t.expect(
    res.status === 200 && body && Array.isArray(body.keys),
    `GET ${path} must answer 200 with a JSON Web Key Set (keys array)`,
    broke([rule], { status: res.status }),
  );
  const keys = body.keys as unknown[];
  if (owner) expectJsonType(t, res, `GET ${path}`, [rule]);
  // Every reader takes each key for a record (its kid, use, alg): a null among them is said here.
  expectRows(keys, `the keys of GET ${path}`, (ok, message) => t.expect(ok, message, broke([rule])));
  return { ...body, keys } as unknown as JSONWebKeySet;
}

/** Bodies parsed per session (the session's config), by their text's digest. */
const parsedSets = new WeakMap<object, Map<string, { body: Record<string, unknown> | undefined; size: number }>>();
/**
 * The body text the kept sets may add up to: one answer at the body limit. A target answering a
 * different flood to each check is then held to one parsed flood at a time (about 173 MB for 8 MB of
 * `{}` keys), as one check's parse was before; ordinary sets (a few KB) are kept by the hundred.
 */
const PARSED_SET_CHARS = DEFAULT_MAX_BODY_BYTES;

/**
 * The key set's body as JSON, parsed once per session and body: every check that reads the set
 * parsed it anew, and 2.7 million `{}` keys in 8 MB cost about 181 MB and 3 s a parse. The keys
 * are shared by the checks that read them, so none may change them (the array is frozen).
 */
function parsedSet(t: CheckContext, res: HttpResponse): Record<string, unknown> | undefined {
  const sets =
    parsedSets.get(t.config) ?? new Map<string, { body: Record<string, unknown> | undefined; size: number }>();
  parsedSets.set(t.config, sets);
  const key = createHash('sha256').update(res.text).digest('base64');
  const kept = sets.get(key);
  if (kept) return kept.body;
  const body = jsonObject(res);
  if (Array.isArray(body?.keys)) Object.freeze(body.keys);
  sets.set(key, { body, size: res.text.length });
  // The oldest go first; the set just parsed stays, whatever its size.
  let total = 0;
  for (const entry of sets.values()) total += entry.size;
  for (const [old, entry] of sets) {
    if (total <= PARSED_SET_CHARS || old === key) break;
    sets.delete(old);
    total -= entry.size;
  }
  return body;
}

/** The members of a private RSA or EC key: published, they break OIDC-JWKS (its own check says so). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'];
/** Every member a published key must not carry: the private ones and a symmetric key's secret `k`. */
export const SECRET_MEMBERS = [...PRIVATE_MEMBERS, 'k'];

/**
 * The most keys a token is tried against, when several may have signed it (several under its kid,
 * which RFC 7517 §4.5 asks to be distinct only as a SHOULD, or no kid): each try is an import and a
 * verification on the run's one thread, and 58,000 keys under one kid held it for minutes (red
 * team, round 7). Past them the bound is the harness's: no verdict (firstVerifying).
 */
export const MAX_CANDIDATES = 4;

/** What judging a key costs beyond the cheap tests (units of modulusCost), or undefined for nothing costly. */
const costOf = (key: JWK): number | undefined => judgeCost(key) ?? (isPoint(key) ? EC_COST : undefined);

/**
 * The keys whose modulus or point is judged (a Miller-Rabin round, an X25519 derivation a key): the
 * one the token names, and, in the set's order, each key whose cost still fits within MODULI_BUDGET.
 */
export function keysToJudge(keys: readonly JWK[], candidates: readonly JWK[] = []): Set<JWK> {
  const costly = keys.filter((k) => costOf(k) !== undefined);
  // The keys a token may be verified with (mayHaveSigned: of its alg and kid, at most
  // MAX_CANDIDATES) are judged whatever the budget: the one that verifies must have been read for
  // forgeability (review 11: the second key under a kid, past the budget, verified unjudged;
  // review 12: judging the first four under the kid missed an RSA key behind four Ed25519 ones).
  const judged = new Set(candidates.filter((k) => costOf(k) !== undefined));
  let spent = 0;
  for (const key of costly) {
    // A key too costly for what is left is passed over, not the end: one huge key first in the set
    // must not leave the ordinary keys after it unjudged.
    const cost = costOf(key)!;
    if (spent + cost > MODULI_BUDGET) continue;
    spent += cost;
    judged.add(key);
  }
  return judged;
}

/** The keys of a set without their private members (jose would read such a key as a private key). */
export const publicKeys = (jwks: JSONWebKeySet): JSONWebKeySet => ({
  // Only a key with private members is copied (a set of millions of keys was copied whole, review 12).
  keys: jwks.keys.map((k) =>
    typeof k !== 'object' || k === null || PRIVATE_MEMBERS.some((m) => m in k)
      ? Object.fromEntries(Object.entries(k).filter(([m]) => !PRIVATE_MEMBERS.includes(m)))
      : k,
  ),
});

/**
 * Every published key judged, as oidc.jwks, which owns OIDC-JWKS, judges it: a key that verifies
 * what no one signed, or that no verifier may use, fails it here.
 */
export function judgeKeySet(t: CheckContext, jwks: JSONWebKeySet): void {
  const view = ownersView(jwks);
  let unjudged = 0;
  // A held key's details are made once: made for each key (broke copies them), they were most of
  // the time and heap a set of millions of keys cost (review 12).
  const held = broke(['OIDC-JWKS']);
  for (const key of jwks.keys) {
    const wrong = wrongWith(key, view);
    // A key the budget leaves out is not judged: counted as held, it passed OIDC-JWKS unread.
    if (wrong === undefined && !view.judged.has(key) && costOf(key) !== undefined) {
      unjudged++;
      continue;
    }
    expectSound(t, key, wrong, held);
  }
  if (unjudged)
    t.note(
      `${unjudged} ${unjudged === 1 ? 'key of the set was' : 'keys of the set were'} not judged for a factorable modulus or a point off its curve or of small order ` +
        `(beyond what the harness judges of one set)`,
    );
}

/**
 * jose's key set of the keys verification may try (`candidates`: mayHaveSigned's), each judged
 * first as oidc.jwks judges it, as public keys only: jose would read a key with private members as
 * a private key and refuse to verify with it, failing a good signature for a leak that is
 * OIDC-JWKS's to judge. Only the candidates are judged: a bad key among the others is oidc.jwks's
 * to say, and the token is verified as well without it (review 29: one such key failed OIDC-JWKS
 * in oidc.id-token too). A failure here is one oidc.jwks says too: the verifier takes it as its
 * premise (keySetPremise). What oidc.jwks leaves unjudged is judgeUnjudged's.
 */
export function localKeys(t: CheckContext, jwks: JSONWebKeySet, candidates: readonly JWK[]) {
  const view = ownersView(jwks);
  const held = broke(['OIDC-JWKS']);
  for (const key of candidates) expectSound(t, key, wrongWith(key, view), held);
  try {
    // Only the candidates: jose copies the set it is given twice over (structuredClone, then each
    // key), and of a set of 2.7 million keys that was most of a gigabyte (review 12).
    return createLocalJWKSet(publicKeys({ keys: [...candidates] }));
  } catch (error) {
    return t.fail(
      'the key set is not a valid JSON Web Key Set',
      broke(['OIDC-JWKS'], { reason: (error as Error).message }),
    );
  }
}

/**
 * The candidates' moduli and points that oidc.jwks leaves unjudged (past its budget), judged
 * before any signature is read as proof against them (review 11): a bad one fails OIDC-JWKS in the
 * verifier that found it, not as a premise. Before, it was skipped "reported by oidc.jwks", which
 * had passed with a note: nobody failed, and the verifier's own rules went untested in silence.
 */
export function judgeUnjudged(t: CheckContext, jwks: JSONWebKeySet, candidates: readonly JWK[], self: string): void {
  const owners = ownersView(jwks);
  const unjudged = candidates.filter((k) => !owners.judged.has(k) && costOf(k) !== undefined);
  if (unjudged.length === 0) return;
  // The candidates judged beside the keys of the budget, so a prime shared with one of those is found.
  const view = judgedView(new Set([...owners.judged, ...unjudged]));
  const held = broke(['OIDC-JWKS']);
  for (const key of unjudged) {
    const wrong = wrongWith(key, view);
    if (wrong === undefined) {
      expectSound(t, key, wrong, held);
      continue;
    }
    const why = `the key set publishes ${wrong} (a key oidc.jwks does not judge)`;
    // One cause, one blame: the first check of the run that finds the key fails it; a later one is
    // untested naming it, a check that failed (its token may not be this check's: review, jwkspair).
    const failedBy = keyBlames(t.caps);
    const id = keyIdentity(key);
    const first = failedBy.get(id);
    if (first !== undefined && first !== self) return t.skip(`${why} ${reportedBy(t, first, 'OIDC-JWKS')}`);
    failedBy.set(id, self);
    try {
      expectSound(t, key, wrong, held, ' (a key oidc.jwks does not judge)');
    } catch (error) {
      ownKeyFailures.add(error as object);
      throw error;
    }
  }
}

/** Per run (one caps object a run, as oncePerRun): which check failed OIDC-JWKS for an unjudged key. */
const blamesPerRun = new WeakMap<Capabilities, Map<string, string>>();

function keyBlames(caps: Capabilities): Map<string, string> {
  let blames = blamesPerRun.get(caps);
  if (!blames) blamesPerRun.set(caps, (blames = new Map<string, string>()));
  return blames;
}

/** A key by its kid and a digest of its public members (kid alone may name several keys). */
const keyIdentity = (key: JWK): string =>
  `${key.kid ?? ''} ${createHash('sha256')
    .update(JSON.stringify([key.kty, key.crv, key.n, key.e, key.x, key.y]))
    .digest('base64url')}`;

/** Failures judgeUnjudged made the running check's own: no premise of it turns them into a skip. */
const ownKeyFailures = new WeakSet<object>();

/** Is `error` a failure of the running check's own for a key oidc.jwks does not judge (judgeUnjudged)? */
export const isOwnKeyFailure = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && ownKeyFailures.has(error);

/** Which keys are judged beyond the cheap tests, and the moduli among them sharing a prime. */
interface JudgedView {
  judged: ReadonlySet<JWK>;
  sharing: ReadonlySet<string>;
}

const judgedView = (judged: Set<JWK>): JudgedView => ({
  judged,
  sharing: sharingModuli([...judged].filter((k) => k.kty === 'RSA').map((k) => k.n!)),
});

/** ownersView of each parsed set's keys (frozen, shared by the checks that read it: parsedSet). */
const ownersViews = new WeakMap<readonly JWK[], JudgedView>();

/**
 * What oidc.jwks judges of a set: the keys within the budget (keysToJudge, no token's). Made once
 * a parsed set: oidc.jwks and each verifier ask, and for a flood of millions of keys it is a pass
 * over all of them.
 */
function ownersView(jwks: JSONWebKeySet): JudgedView {
  const known = ownersViews.get(jwks.keys);
  if (known) return known;
  const view = judgedView(keysToJudge(jwks.keys));
  // Only a frozen array cannot change under the memo.
  if (Object.isFrozen(jwks.keys)) ownersViews.set(jwks.keys, view);
  return view;
}

/** Why `key` may not be published, as far as `view` judges it, or undefined. */
function wrongWith(key: JWK, view: JudgedView): string | undefined {
  const cheap = forgeableKey(key) ?? shortModulus(key);
  if (cheap !== undefined || !view.judged.has(key)) return cheap;
  return (
    smallOrderKey(key) ??
    factorableModulus(key) ??
    (view.sharing.has(key.n!) ? SHARED_FACTOR : undefined) ??
    unreadablePoint(key)
  );
}

/** `key` sound (`wrong` undefined), else OIDC-JWKS failed naming it by kid alone (its members are public, but long). */
function expectSound(t: CheckContext, key: JWK, wrong: string | undefined, held: FailureDetails, why = ''): void {
  t.expect(
    wrong === undefined,
    `the key set publishes ${wrong}${why}`,
    wrong === undefined ? held : broke(['OIDC-JWKS'], { kid: key.kid ?? null }),
  );
}

/**
 * Whether a verification failed on the published key itself rather than on the signature: jose
 * refuses an RSA modulus under 2048 bits (RFC 7518 §3.3) with a TypeError, WebCrypto an EC point
 * off its curve with a DataError. The key set is then at fault (OIDC-JWKS), not the token.
 */
export function unusableKey(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'DataError');
}

/** The configured application that may request openid. */
export function openidApp(t: CheckContext): AppRole {
  const role = (['confidential', 'public'] as const).find((r) => t.config.applications?.[r]?.scopes.includes('openid'));
  if (!role) t.skip('no configured application holds the openid scope');
  return role;
}

/** A scope for `role` that leaves openid out (api when it has it). */
export function scopeWithoutOpenid(t: CheckContext, role: AppRole): string {
  const scopes = t.config.applications![role]!.scopes.filter((s) => s !== 'openid');
  if (scopes.length === 0) t.skip(`the ${role} application holds no scope besides openid`);
  return scopes.includes('api') ? 'api' : scopes[0];
}
