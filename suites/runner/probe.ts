/**
 * Before any check: is this plausibly an identity provider of the spec at all? Four cheap
 * questions, any one answered as a provider answers being enough: a discovery document, RFC 8414
 * metadata, an OAuth error from the token endpoint, JSON from the REST API. A static file server, a site that answers
 * 500 or HTML to everything answers none, and the run stops with one line instead of 70 failures.
 */
import { TransportError, type Target, type TargetResponse } from '../target/types.js';
import { screen, UnservedAnswer } from '../target/unserved.js';
import { DISCOVERY_PATH, discoveryPath, METADATA_PATH, metadataUrl, sameIssuer } from '../shared/oauth.js';

export interface ProbeResult {
  /**
   * At least one answer only a provider of the spec would give; or none could tell, each question
   * answered by a bot wall or a gateway's page in the provider's place: the session meets them too
   * and stops the run on them, with its verdict and reports (runner/session.ts).
   */
  provider: boolean;
  /** What each question got, in words: `GET /.well-known/openid-configuration: 404 text/html`. */
  found: string[];
}

interface Question {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Does this answer come from a provider of the spec? */
  provider(status: number, json: unknown): boolean;
  /** What a provider would have answered, for the sentence. */
  wanted: string;
  /** Where it is asked, when not at `path` under the base URL. */
  at?: (base: string) => string;
}

/** A field of parsed JSON; undefined for null, a primitive or an array (none has named fields). */
const field = (json: unknown, name: string): unknown => (json as Record<string, unknown> | null | undefined)?.[name];

/** A metadata document: an issuer or a token endpoint named. */
const metadata = (s: number, j: unknown) =>
  s === 200 && (typeof field(j, 'issuer') === 'string' || typeof field(j, 'token_endpoint') === 'string');

const QUESTIONS: Question[] = [
  { method: 'GET', path: DISCOVERY_PATH, provider: metadata, wanted: 'no discovery document' },
  // An OAuth server that publishes RFC 8414's metadata instead, its endpoints at paths of its own.
  {
    method: 'GET',
    path: METADATA_PATH,
    provider: metadata,
    wanted: 'no authorization server metadata',
    at: (base) => metadataUrl(base, undefined),
  },
  {
    method: 'POST',
    path: '/oauth/token',
    // No client and no code: every provider refuses it with an OAuth error body (RFC 6749 5.2).
    body: 'grant_type=authorization_code',
    provider: (s, j) => s >= 400 && s < 500 && s !== 404 && typeof field(j, 'error') === 'string',
    wanted: 'no OAuth error',
  },
  {
    method: 'GET',
    path: '/api/v4/user',
    // A JSON 404 is a router saying the path is not there (GitLab answers one under any unknown
    // path, so a baseUrl one segment too deep, `…/api/v4`, would pass): no API at this baseUrl.
    provider: (s, j) => s < 500 && s !== 404 && j !== undefined,
    wanted: 'not JSON',
  },
];

function parse(text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: undefined
  }
  return json;
}

export async function probeTarget(target: Target, base = target.baseUrl): Promise<ProbeResult> {
  const found: string[] = [];
  // A question the target would not serve (rate-limited) tells nothing of what it is: with no
  // provider answer besides, the run stops on that, not on "not a provider".
  let limited: TransportError | undefined;
  let unserved = 0;
  for (const q of QUESTIONS) {
    const headers = new Headers({ accept: 'application/json' });
    if (q.body) headers.set('content-type', 'application/x-www-form-urlencoded');
    const url = q.at?.(base) ?? base + q.path;
    // What was asked: a path under the base URL, or the path itself where it is not under it (RFC 8414's).
    const asked = `${q.method} ${q.at ? new URL(url).pathname : q.path}`;
    let response: TargetResponse;
    try {
      response = await screen(asked, await target.send({ method: q.method, url, headers, body: q.body }));
    } catch (error) {
      if (error instanceof UnservedAnswer) unserved++;
      // Unanswered (or cut short by the run's bound), the rest would wait as long for nothing: the
      // target does not answer, which is no sign it is not a provider.
      if (
        !(error instanceof TransportError) ||
        ['unreachable', 'untrusted', 'timeout', 'deadline'].includes(error.code)
      )
        throw error;
      if (error.code === 'rate-limited') limited ??= error;
      found.push(`${asked}: ${error.message.replace(`${asked}: `, '')}`);
      continue;
    }
    const json = parse(await response.text());
    if (q.provider(response.status, json)) return { provider: true, found: [] };
    const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0];
    // A JSON 404 is JSON: what it lacks is the endpoint.
    const wanted = response.status === 404 && json !== undefined ? 'not found' : q.wanted;
    found.push(`${asked} answered ${response.status} ${type}, ${wanted}`);
  }
  if (limited) throw limited;
  return { provider: unserved === QUESTIONS.length, found };
}

/** The one line a run stops with; `above`, a base URL higher up that answers as a provider. */
export function notAProvider(target: Target, result: ProbeResult, above?: string): string {
  const hint = above
    ? `; ${above} answers as one: the spec's paths (/oauth/token, /api/v4/user) are appended to baseUrl, so set baseUrl to ${above}`
    : '';
  return `${target.baseUrl} is not an identity provider of this spec (${result.found.join('; ')})${hint}; no check was run`;
}

/**
 * A baseUrl with a path that is no provider (`https://idp/api/v4`, `https://idp/oauth`: the user's
 * mistake, most often) may sit under one: each shorter path of the same origin, nearest first, is
 * asked the same questions, and the first that answers as a provider is returned. Same origin only:
 * nothing leaves the target's origin. Answers that cannot tell (a wall, a limit) end the search.
 */
export async function providerAbove(target: Target): Promise<string | undefined> {
  const url = new URL(target.baseUrl);
  const segments = url.pathname.split('/').filter(Boolean);
  for (let n = segments.length - 1; n >= 0; n--) {
    const base =
      url.origin +
      segments
        .slice(0, n)
        .map((s) => `/${s}`)
        .join('');
    const result = await probeTarget(target, base).catch(() => undefined);
    if (!result) return undefined;
    if (result.provider && !result.found.length) return base;
  }
  return undefined;
}

/** GET `path` of the target as the probe asks it: its status and parsed JSON, or undefined (no answer). */
async function ask(target: Target, path: string): Promise<{ status: number; json: unknown } | undefined> {
  try {
    const headers = new Headers({ accept: 'application/json' });
    const response = await target.send({ method: 'GET', url: target.baseUrl + path, headers });
    return { status: response.status, json: parse(await response.text()) };
  } catch {
    return undefined;
  }
}

/**
 * A configured issuer under baseUrl with no discovery document there, while baseUrl's names another
 * issuer: the config's mistake (a realm misspelt, a path the provider does not use), which would
 * otherwise fail the provider's id_tokens on their iss (OIDC-ID-TOKEN-CLAIMS) and warn
 * OIDC-DISCOVERY. The sentence to stop with, or undefined.
 */
export async function issuerMistake(target: Target): Promise<string | undefined> {
  const issuer = target.config.issuer;
  const path = discoveryPath(target.baseUrl, issuer);
  if (issuer === undefined || path === DISCOVERY_PATH) return undefined;
  if ((await ask(target, path))?.status !== 404) return undefined;
  const root = await ask(target, DISCOVERY_PATH);
  const named = field(root?.json, 'issuer');
  if (root?.status !== 200 || typeof named !== 'string' || sameIssuer(named, issuer)) return undefined;
  return `issuer ${issuer} has no discovery document (GET ${path} answered 404), and the one at baseUrl names issuer ${named}: set issuer to ${named}, or leave it out (it is then read from discovery); no check was run`;
}
