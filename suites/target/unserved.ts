/**
 * Answers that are not the provider's: a bot-protection wall in front of it (Cloudflare's
 * challenge, AWS WAF, Akamai) refusing the harness, or a gateway's error page (nginx's 502, a
 * maintenance 503, a CDN's 504 or 52x) standing in for a provider it could not reach. Neither says
 * anything about the rule the request was for: the check that met one is errored, never failed, and
 * a few in a row stop the run (runner/session.ts). Judged from the status, the headers and the
 * first WALL_SNIFF_CHARS of the body only, by substring search: bounded, linear time.
 */
import { GATEWAY_ERRORS } from '../shared/rest-tokens.js';
import { TransportError, type TargetResponse } from './types.js';

/** How much of a body is read for a wall's markers: vendors put them in the title and first lines. */
export const WALL_SNIFF_CHARS = 4096;

/**
 * The walls, each with what marks it. `header`: a header only that vendor's wall sends, enough on its
 * own. Otherwise an HTML answer of one of `statuses` whose body's start holds one of `body` (lower
 * case), from a `server` that starts so where one is named. Never the server alone: a provider
 * behind Cloudflare has `server: cloudflare` on its own HTML pages too.
 */
const WALLS: readonly {
  name: string;
  header?: readonly [name: string, value: string];
  statuses: readonly number[];
  server?: string;
  body: readonly string[];
}[] = [
  // Cloudflare's managed challenge says so in a header of its own; its interstitial ("Just a
  // moment...") and block page ("Attention Required!", a Ray ID in cf-error-details) are 403 or 503.
  {
    name: "Cloudflare's bot challenge",
    header: ['cf-mitigated', 'challenge'],
    statuses: [403, 503],
    body: ['<title>just a moment...</title>', '<title>attention required! | cloudflare</title>', 'cf-error-details'],
  },
  // AWS WAF names its CAPTCHA (405) and challenge (202) actions in a header; its block is CloudFront's
  // "Request blocked." page, or a bare 403 page from the load balancer itself.
  {
    name: 'AWS WAF',
    header: ['x-amzn-waf-action', ''],
    statuses: [403],
    body: ['request blocked.'],
  },
  { name: 'AWS WAF', statuses: [403], server: 'awselb', body: ['<title>403 forbidden</title>'] },
  // Akamai's edge: "Access Denied ... Reference #18.…", the reference number entity-encoded.
  {
    name: "Akamai's bot protection",
    statuses: [403],
    body: ['reference&#32;&#35;18&#46;', 'reference #18.'],
  },
];

/** What stood in for the provider: a wall (`what`: its vendor's name) or a gateway error (`what`: its status). */
export interface Unserved {
  kind: 'wall' | 'gateway';
  what: string;
}

const typeOf = (headers: Headers) => (headers.get('content-type') ?? 'no content type').split(';')[0].trim();

/** The wall that answered, if one did, from its headers alone (first) or its status, server and page. */
function wallOf(status: number, headers: Headers, start: () => string): string | undefined {
  for (const { header, name } of WALLS)
    if (header && headers.get(header[0])?.toLowerCase().includes(header[1])) return name;
  if (!typeOf(headers).toLowerCase().includes('html')) return undefined;
  const server = headers.get('server')?.toLowerCase() ?? '';
  return WALLS.find(
    (w) =>
      w.statuses.includes(status) &&
      (!w.server || server.startsWith(w.server)) &&
      w.body.some((m) => start().includes(m)),
  )?.name;
}

/** Could this answer be a wall or a gateway's page? Only then is its body read before the check does. */
const suspect = (status: number, headers: Headers) =>
  GATEWAY_ERRORS.has(status) ||
  WALLS.some((w) => w.statuses.includes(status) || (w.header && headers.has(w.header[0])));

/**
 * What stood in for the provider in this answer, if anything: a wall, or a gateway error whose body
 * is not JSON. A gateway status with a JSON body is the provider's own answer (it speaks the API's
 * language: a 503 maintenance JSON, a broken endpoint's 502) and is judged as any answer is.
 * `start`: the body's first WALL_SNIFF_CHARS characters, asked only when the status could be one.
 */
export function unservedOf(status: number, headers: Headers, start: () => string): Unserved | undefined {
  if (!suspect(status, headers)) return undefined;
  let lower: string | undefined;
  const wall = wallOf(status, headers, () => (lower ??= start().slice(0, WALL_SNIFF_CHARS).toLowerCase()));
  if (wall) return { kind: 'wall', what: wall };
  if (GATEWAY_ERRORS.has(status) && !typeOf(headers).toLowerCase().includes('json'))
    return { kind: 'gateway', what: String(status) };
  return undefined;
}

/** The answer as the checks will read it, or the TransportError (`unserved`) saying what stood in for the provider. */
export async function screen(what: string, response: TargetResponse): Promise<TargetResponse> {
  const { status, headers } = response;
  if (!suspect(status, headers)) return response;
  const text = await response.text();
  const unserved = unservedOf(status, headers, () => text);
  const seen = `${what}: ${status} ${typeOf(headers)}`;
  if (unserved?.kind === 'wall')
    throw new UnservedAnswer(
      `the target's bot protection answered instead of the provider (${seen}, ${unserved.what}), so nothing was seen`,
      unserved,
      status,
    );
  if (unserved)
    throw new UnservedAnswer(
      `a gateway answered instead of the provider (${seen}, a gateway error), so nothing was seen; run again once it is served`,
      unserved,
      status,
    );
  return { status, headers, text: async () => text };
}

/** A request answered by a wall or a gateway, not by the provider: no answer to what it asked. */
export class UnservedAnswer extends TransportError {
  constructor(
    message: string,
    readonly unserved: Unserved,
    status: number,
  ) {
    super(message, 'unserved', undefined, status);
  }
}
