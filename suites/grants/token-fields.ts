/**
 * The exact token response of each grant: the per-grant schemas of spec/openapi.yaml (fields,
 * types, `bearer` versus `Bearer`, expires_in, refresh_token present or excluded). Each violation
 * names the grant's response-shape rule and the rule of the field it is about.
 */
import type { RuleId } from '../../spec/index.js';
import type { CheckContext, TokenResponse } from '../types.js';
import { expectSchema } from './schemas.js';

export type Grant = 'authorization_code' | 'refresh_token' | 'password' | 'device_code';

interface GrantResponse {
  schema: string;
  /** The rule fixing the whole response shape. */
  shape: RuleId;
  /** The rule fixing token_type's spelling. */
  tokenType: RuleId;
  /** The rule on refresh_token: present or absent. */
  refreshToken: RuleId;
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
    tokenType: 'TOK-TYPE-DEVICE-BEARER',
    refreshToken: 'TOK-REFRESH-TOKEN-ABSENT',
  },
};

/** Fields whose rule is the same for every grant (scope is the device response's own field). */
const FIELD_RULES: Record<string, RuleId> = {
  access_token: 'TOK-ACCESS-TOKEN',
  expires_in: 'TOK-EXPIRES-IN',
  created_at: 'TOK-CREATED-AT',
  id_token: 'OIDC-ID-TOKEN',
};

function fieldRules(g: GrantResponse, grant: Grant) {
  return (field: string | undefined, keyword: string): RuleId[] => {
    // The device schema excludes refresh_token with `not: required`; the password schema with additionalProperties.
    if (keyword === 'not' || field === 'refresh_token') return [g.shape, g.refreshToken];
    if (field === 'token_type') return [g.shape, g.tokenType];
    if (field === 'scope' && grant === 'device_code') return [g.shape, 'TOK-SCOPE-DEVICE'];
    if (field === undefined && keyword === 'type') return [g.shape, 'TOK-RESPONSE-JSON'];
    return field && FIELD_RULES[field] ? [g.shape, FIELD_RULES[field]] : [g.shape];
  };
}

export function expectTokenFields(t: CheckContext, body: TokenResponse, grant: Grant, what: string): void {
  const g = GRANTS[grant];
  expectSchema(t, body, g.schema, `${what} (${grant} grant)`, fieldRules(g, grant));
}
