/**
 * The exact token response of each grant, as the source's token-response table gives it:
 * which fields, their types, `bearer` versus `Bearer`, and expires_in from limits().
 */
import { limits } from '../../spec/index.js';
import type { CheckContext, TokenResponse } from '../types.js';

export type Grant = 'authorization_code' | 'refresh_token' | 'password' | 'device_code';

interface Shape {
  tokenType: string;
  required: string[];
  /** Fields a response may add (standard OAuth/OIDC fields the source does not show but does not exclude). */
  optional: string[];
}

/** Source: "Token response" table (field notes name the grants each field appears in). */
const SHAPES: Record<Grant, Shape> = {
  authorization_code: { tokenType: 'bearer', required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'created_at'], optional: ['scope', 'id_token'] },
  refresh_token: { tokenType: 'bearer', required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'created_at'], optional: ['scope', 'id_token'] },
  // "returns only access_token, token_type, expires_in"
  password: { tokenType: 'bearer', required: ['access_token', 'token_type', 'expires_in'], optional: [] },
  device_code: { tokenType: 'Bearer', required: ['access_token', 'token_type', 'expires_in', 'created_at', 'scope'], optional: ['refresh_token', 'id_token'] },
};

const TYPES: Record<string, 'string' | 'integer'> = {
  access_token: 'string',
  token_type: 'string',
  expires_in: 'integer',
  refresh_token: 'string',
  created_at: 'integer',
  scope: 'string',
  id_token: 'string',
};

export function expectTokenFields(t: CheckContext, body: TokenResponse, grant: Grant, what: string): void {
  const shape = SHAPES[grant];
  const fields = Object.keys(body);
  const missing = shape.required.filter((f) => !(f in body));
  t.expect(missing.length === 0, `${what}: the ${grant} token response lacks ${missing.join(', ')}`, { fields, missing });
  const extra = fields.filter((f) => !shape.required.includes(f) && !shape.optional.includes(f));
  t.expect(extra.length === 0, `${what}: the ${grant} token response carries fields the spec does not give it: ${extra.join(', ')}`, { fields, extra });
  for (const f of fields) {
    const value = body[f];
    const ok = TYPES[f] === 'integer' ? Number.isInteger(value) : typeof value === 'string' && value.length > 0;
    t.expect(ok, `${what}: ${f} must be ${TYPES[f] === 'integer' ? 'an integer' : 'a non-empty string'}`, { field: f, type: typeof value });
  }
  t.expect(body.token_type === shape.tokenType, `${what}: token_type must be "${shape.tokenType}" for the ${grant} grant`, {
    tokenType: body.token_type,
  });
  const lifetime = limits().accessTokenLifetime;
  t.expect(body.expires_in === lifetime, `${what}: expires_in must be ${lifetime}`, { expiresIn: body.expires_in });
  if (body.created_at !== undefined) t.expect((body.created_at as number) > 0, `${what}: created_at must be a Unix timestamp`, { createdAt: body.created_at });
}
