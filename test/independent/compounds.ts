/**
 * Providers deviate in several ways at once: compounds of corpus deviations that real providers
 * show together, each composed into one deviation whose blame is the union of its parts' (one
 * cause, one blame, however many causes). bench/compounds.ts runs them all; the ones that exposed
 * an interaction are proven in compound-blame.test.ts.
 */
import type { Deviation } from './corpus.js';
import type { Rewrite } from './oauth-proxy.js';
import { OAUTH_DEVIATIONS } from './oauth-deviations.js';
import { REST_DEVIATIONS } from './rest-deviations.js';
import { RATE_LIMIT_VARIANTS } from './rate-limits.js';

export interface Compound {
  /** The provider it stands for. */
  name: string;
  /** Corpus entries by name, in the order their rewrites apply (an encoding of the answer last). */
  parts: string[];
}

/** GitHub's token answers, and its REST API's pages by Link alone, without totals. */
const GITHUB_BOTH_SIDES = [
  'scope in token responses comma-separated ("repo,gist", GitHub\'s), no token info',
  'token responses without expires_in',
  'refresh refused with 200 and an OAuth error body',
  'x-total and x-total-pages left out of a small collection on self-managed',
];

export const COMPOUNDS: Compound[] = [
  {
    name: 'GitHub OAuth app',
    parts: [
      'scope in token responses comma-separated ("repo,gist", GitHub\'s), no token info',
      'token responses without expires_in',
      'refresh refused with 200 and an OAuth error body',
      'a device authorization response without verification_uri_complete',
      'token and device authorization answers form-encoded unless the request asks for JSON',
    ],
  },
  {
    name: 'Keycloak',
    parts: [
      'revocation takes the client secret in HTTP Basic only: credentials in the body refused 401 invalid_client',
      'revoking an access token answers 200 and leaves it working (Auth0 revokes refresh tokens only)',
      'refresh tokens that do not rotate: no new one in the response, the old one keeps working',
    ],
  },
  {
    name: 'Okta',
    parts: [
      'authorization requests without state refused with invalid_request (Okta, Ory Hydra)',
      'a rotated refresh token still redeemed within a 30 s grace period (Okta, Ory Hydra)',
      'revocation takes the client secret in HTTP Basic only: credentials in the body refused 401 invalid_client',
      'access tokens that live 3600 s, their expires_in saying so',
    ],
  },
  {
    name: 'Entra ID',
    parts: [
      'code responses without refresh_token unless offline_access is asked (Ory Hydra, Okta, Entra ID)',
      'access tokens that live 3600 s, their expires_in saying so',
      "Entra ID's error_description with its trace lines separated by CR LF",
    ],
  },
  {
    name: 'Amazon Cognito',
    parts: [
      'the token endpoint takes the client secret in HTTP Basic only',
      'a wrong client secret in HTTP Basic refused 400 invalid_client without WWW-Authenticate',
      'revocation answers 204 No Content',
    ],
  },
  {
    name: 'an instance behind a front proxy',
    parts: [
      'a front proxy that decodes %2F in the path before the service sees it',
      'an unknown /api/v4 route answered 404 text/html by a front proxy',
      'Link URLs naming the internal upstream (http://gitlab-webservice-default:8181) instead of the public address',
      'REST 401s without WWW-Authenticate, status and JSON body kept',
    ],
  },
  // Both sides at once: an OAuth provider and the REST API its tokens open.
  {
    // Its defaults: [oauth2] ACCESS_TOKEN_EXPIRATION_TIME 3600, [api] MAX_RESPONSE_ITEMS 50, and
    // x-total-count where the source has x-total and x-total-pages.
    name: 'Gitea (OAuth and REST)',
    parts: [
      'access tokens that live 3600 s, their expires_in saying so',
      'per_page capped at 50 (x-per-page, the rows and the links say 50)',
      'x-total and x-total-pages left out of a small collection on self-managed',
    ],
  },
  { name: 'GitHub OAuth app and REST API', parts: GITHUB_BOTH_SIDES },
  {
    // The same behind GitHub's primary rate limit: a request of either side may be held.
    name: 'GitHub OAuth app and REST API behind its primary rate limit',
    parts: [
      ...GITHUB_BOTH_SIDES,
      "every 5th request 403 with x-ratelimit-remaining: 0 and X-RateLimit-Reset (GitHub's primary rate limit)",
    ],
  },
  {
    name: 'a REST API with its own pagination limits',
    parts: [
      'per_page capped at 50 (x-per-page, the rows and the links say 50)',
      'x-total and x-total-pages left out of a small collection on self-managed',
      'no keyset next link on a page while more rows follow',
      'rel=prev on the first offset page, to itself',
    ],
  },
];

/** Rewrites applied one after another (a request's, then an answer's, in order); the first refusal wins. */
export function composed(rewrites: Rewrite[]): Rewrite {
  return {
    request: (asked, sim) => rewrites.reduce((changed, r) => r.request?.(asked, sim) === true || changed, false),
    refuse: (asked) => rewrites.map((r) => r.refuse?.(asked)).find(Boolean),
    async answer(asked, answer, sim) {
      let changed = false;
      for (const r of rewrites) changed = (await r.answer?.(asked, answer, sim)) === true || changed;
      return changed;
    },
  };
}

/**
 * What a compound is made of: the corpus deviations, and the rate limits real providers put in
 * front (allowed: they break nothing of their own, but take any request of any side, so a compound
 * shows whether another part's blame survives the waits). Each limiter is made afresh for its run.
 */
export const COMPOUND_PARTS: Deviation[] = [
  ...OAUTH_DEVIATIONS,
  ...REST_DEVIATIONS,
  ...RATE_LIMIT_VARIANTS.map((limit) => ({
    ...limit,
    breaks: limit.warns ?? [],
    get rewrite() {
      return limit.rewrite;
    },
  })),
];

/** A compound as one deviation: its parts' checks, their broken rules, their rewrites composed. */
export function compoundDeviation(compound: Compound, table = COMPOUND_PARTS): Deviation {
  const parts = compound.parts.map((name) => {
    const part = table.find((d) => d.name === name);
    if (!part) throw new Error(`compound ${compound.name}: no corpus entry named ${name}`);
    return part;
  });
  return {
    name: compound.name,
    cite: parts.map((p) => p.cite).join('; '),
    checks: [...new Set(parts.flatMap((p) => p.checks))],
    breaks: [...new Set(parts.flatMap((p) => p.breaks))],
    rewrite: composed(parts.map((p) => p.rewrite)),
    flags: Object.assign({}, ...parts.map((p) => p.flags)) as Deviation['flags'],
    // A rate limit's waits pass on its virtual clock.
    http: parts.find((p) => p.http)?.http,
  };
}
