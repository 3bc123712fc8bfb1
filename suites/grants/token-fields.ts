/**
 * The exact token response of each grant: the per-grant schemas of spec/openapi.yaml (fields,
 * types, `bearer` versus `Bearer`, expires_in, refresh_token present or excluded). Each violation
 * names the grant's response-shape rule and the rule of the field it is about.
 */
import { schema, type RuleId } from '../../spec/index.js';
import type { CheckContext, TokenResponse } from '../types.js';
import { expectSchema } from './schemas.js';
import { commaDelimited } from '../shared/scope-list.js';
import { own } from '../shared/own.js';
import { hasRefreshToken, sayRefreshTokenMissing } from '../shared/refresh-premise.js';

export type Grant = 'authorization_code' | 'refresh_token' | 'password' | 'device_code';

interface GrantResponse {
  schema: string;
  /** The rule fixing the whole response shape. */
  shape: RuleId;
  /** The rule fixing token_type's spelling. */
  tokenType: RuleId;
  /** The rule on refresh_token: present or absent (none where either is allowed). */
  refreshToken?: RuleId;
}

const GRANTS: Record<Grant, GrantResponse> = {
  authorization_code: {
    schema: 'AuthorizationCodeTokenResponse',
    shape: 'TOK-CODE-RESPONSE-FIELDS',
    tokenType: 'TOK-TYPE-LOWERCASE-BEARER',
    refreshToken: 'TOK-REFRESH-TOKEN-PRESENT',
  },
  refresh_token: {
    schema: 'RefreshTokenResponse',
    shape: 'TOK-REFRESH-RESPONSE-FIELDS',
    tokenType: 'TOK-TYPE-LOWERCASE-BEARER',
    refreshToken: 'TOK-REFRESH-TOKEN-PRESENT',
  },
  password: {
    schema: 'PasswordTokenResponse',
    shape: 'TOK-PASSWORD-RESPONSE-FIELDS',
    tokenType: 'TOK-TYPE-LOWERCASE-BEARER',
    refreshToken: 'TOK-REFRESH-TOKEN-ABSENT',
  },
  device_code: {
    schema: 'DeviceTokenResponse',
    shape: 'TOK-DEVICE-RESPONSE-FIELDS',
    // L29 shows none "in the responses shown"; RFC 8628 §3.5 and RFC 6749 §5.1 allow one.
    tokenType: 'TOK-TYPE-DEVICE-BEARER',
  },
};

/** Fields whose rule is the same for every grant (scope is the device response's own field). */
const FIELD_RULES: Record<string, RuleId> = {
  access_token: 'TOK-ACCESS-TOKEN',
  expires_in: 'TOK-EXPIRES-IN',
  created_at: 'TOK-CREATED-AT',
  id_token: 'OIDC-ID-TOKEN',
};

/** RFC 6749 §5.1/§7.1: the token type is case insensitive; the source's exact spelling is the grant's own rule. */
const bearer = (value: unknown) => typeof value === 'string' && value.toLowerCase() === 'bearer';

function fieldRules(g: GrantResponse, grant: Grant, body: TokenResponse) {
  return (field: string | undefined, keyword: string): RuleId[] => {
    // The password schema excludes refresh_token with additionalProperties.
    if (keyword === 'not' || field === 'refresh_token') return g.refreshToken ? [g.shape, g.refreshToken] : [g.shape];
    // A present token_type of another spelling breaks the spelling rule only; not bearer at all, also TOK-TYPE-BEARER.
    if (field === 'token_type' && keyword === 'required') return [g.shape, 'TOK-TYPE-BEARER'];
    if (field === 'token_type') return bearer(body?.token_type) ? [g.tokenType] : [g.tokenType, 'TOK-TYPE-BEARER'];
    // A present field of another value (expires_in 3600) or type ("7200") breaks that field's rule,
    // which fixes both; the response's shape rule lists the fields only.
    const fieldRule = field === undefined ? undefined : own(FIELD_RULES, field);
    if ((keyword === 'const' || keyword === 'type') && fieldRule) return [fieldRule];
    if (field === 'scope' && grant === 'device_code') return [g.shape, 'TOK-SCOPE-DEVICE'];
    if (field === undefined && keyword === 'type') return [g.shape, 'TOK-RESPONSE-JSON'];
    return fieldRule ? [g.shape, fieldRule] : [g.shape];
  };
}

/** The rules a response matching its grant's schema proves (its shape, token_type spelling, refresh_token). */
export function responseRules(grant: Grant): RuleId[] {
  const g = GRANTS[grant];
  return [g.shape, g.tokenType, ...(g.refreshToken ? [g.refreshToken] : [])];
}

/** What a response matching its grant's schema proves: its response rules and the rule of each field the schema requires. */
function matchRules(grant: Grant): RuleId[] {
  const required = schema(GRANTS[grant].schema).required ?? [];
  return [...responseRules(grant), ...required.flatMap((field) => (FIELD_RULES[field] ? [FIELD_RULES[field]] : []))];
}

/** Judge a token response against its grant's schema; returns whether it matched. */
export function expectTokenFields(t: CheckContext, body: TokenResponse, grant: Grant, what: string): boolean {
  const g = GRANTS[grant];
  t.soft(bearer(body?.token_type), `${what} (${grant} grant): token_type must be bearer (in any case)`, {
    rules: ['TOK-TYPE-BEARER'],
    tokenType: typeof body?.token_type === 'string' ? body.token_type : null,
  });
  // RFC 6749 §3.3, §5.1, Appendix A.4: its own sentence, whatever the grant; the other checks read the list either way.
  if (typeof body?.scope === 'string')
    t.soft(!commaDelimited(body.scope), `${what} (${grant} grant): scope must be space-delimited`, {
      rules: ['TOK-SCOPE-SPACE-DELIMITED'],
      scope: body.scope,
    });
  // A code response without its refresh token fails TOK-REFRESH-TOKEN-PRESENT here: the checks that need one skip.
  if (grant === 'authorization_code' && body && !hasRefreshToken(body)) sayRefreshTokenMissing(t);
  return expectSchema(t, body, g.schema, `${what} (${grant} grant)`, fieldRules(g, grant, body), matchRules(grant));
}
