/**
 * What the discovery document lists, held to OIDC Discovery §3 (OIDC-DISCOVERY): the members it
 * must name, RS256 among its id_token algorithms (OIDC-DISCOVERY-RS256), and the response and
 * grant types it lists against what the endpoints answer. One
 * judgement for the run (oidc.discovery, which asks each type) and the proxy (which judges the
 * answers its client was given): pure, each of a document or an answer already seen.
 */
import type { CheckContext } from '../types.js';
import { broke } from '../shared/rules.js';
import { redirectParams } from '../drivers/hand-over.js';

/** The strings of a list member of the document (none when it is no list). */
export const listedIn = (doc: Record<string, unknown>, field: string): string[] => {
  const value = doc[field];
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
};

/** Members each list must name (OIDC Discovery §3: a provider of the source serves each). */
const MUST_LIST: Record<string, string> = {
  scopes_supported: 'openid',
  response_types_supported: 'code',
  grant_types_supported: 'authorization_code',
};

/** The lists the document must carry, and what each must name. */
export function judgeDiscoveryLists(t: CheckContext, doc: Record<string, unknown>): void {
  for (const [field, member] of Object.entries(MUST_LIST))
    t.expect(
      Array.isArray(doc[field]) && (doc[field] as unknown[]).includes(member),
      `${field} must list ${member}`,
      broke(['OIDC-DISCOVERY'], { [field]: doc[field] ?? null }),
    );
  // REQUIRED (OIDC Discovery §3): oidc.discovery-rs256 judges what it lists, once it is there.
  t.expect(
    Array.isArray(doc.id_token_signing_alg_values_supported),
    'id_token_signing_alg_values_supported must be a list (OIDC Discovery §3)',
    broke(['OIDC-DISCOVERY'], {
      id_token_signing_alg_values_supported: doc.id_token_signing_alg_values_supported ?? null,
    }),
  );
}

/** id_token_signing_alg_values_supported, a list (judged as such by judgeDiscoveryLists): RS256 among its algorithms. */
export function judgeRs256Listed(t: CheckContext, algs: readonly unknown[]): void {
  t.expect(
    algs.includes('RS256'),
    'id_token_signing_alg_values_supported must include RS256 (OIDC Discovery §3)',
    broke(['OIDC-DISCOVERY-RS256'], { id_token_signing_alg_values_supported: algs.slice(0, 10) }),
  );
}

/**
 * A grant type /oauth/token served (answered anything but unsupported_grant_type) or refused as
 * unsupported, against grant_types_supported (`listed`): a listed one refused, or one served and
 * left out, disagree with the provider.
 */
export function judgeGrantListed(
  t: CheckContext,
  grant: string,
  served: boolean,
  listed: readonly string[],
  status: number,
): void {
  t.expect(
    served === listed.includes(grant),
    served
      ? `/oauth/token serves grant_type ${grant}, which grant_types_supported leaves out`
      : `grant_types_supported lists ${grant}, which /oauth/token refuses as unsupported`,
    broke(['OIDC-DISCOVERY'], { grant, status, listed }),
  );
}

/** A response type response_types_supported lists, answered by /oauth/authorize (`redirect`, if any): never refused as unsupported. */
export function judgeResponseTypeListed(t: CheckContext, responseType: string, redirect: URL | undefined): void {
  t.expect(
    !redirect || redirectParams(redirect).get('error') !== 'unsupported_response_type',
    `response_types_supported lists ${responseType}, which /oauth/authorize refuses as unsupported`,
    broke(['OIDC-DISCOVERY'], { responseType }),
  );
}
