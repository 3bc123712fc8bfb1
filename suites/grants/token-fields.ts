/**
 * The exact token response of each grant: the per-grant schemas of spec/openapi.yaml (fields,
 * types, `bearer` versus `Bearer`, expires_in, refresh_token present or excluded).
 */
import type { CheckContext, TokenResponse } from '../types.js';
import { expectSchema } from './schemas.js';

export type Grant = 'authorization_code' | 'refresh_token' | 'password' | 'device_code';

const SCHEMAS: Record<Grant, string> = {
  authorization_code: 'AuthorizationCodeTokenResponse',
  refresh_token: 'RefreshTokenResponse',
  password: 'PasswordTokenResponse',
  device_code: 'DeviceTokenResponse',
};

export function expectTokenFields(t: CheckContext, body: TokenResponse, grant: Grant, what: string): void {
  expectSchema(t, body, SCHEMAS[grant], `${what} (${grant} grant)`);
}
