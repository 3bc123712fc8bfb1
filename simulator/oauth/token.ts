/** POST /oauth/token (oauthToken): reads the parameters once and hands them to the grant named. */
import type { Handler } from '../types.js';
import { UnsupportedGrantType } from './errors.js';
import { required, withBodyParams } from './params.js';
import type { Grant } from './grants/grant.js';
import { authorizationCode } from './grants/authorization-code.js';
import { refreshToken } from './grants/refresh-token.js';
import { password } from './grants/password.js';
import { deviceCode } from './grants/device-code.js';

export const GRANTS: Grant[] = [authorizationCode, refreshToken, password, deviceCode];

export const oauthToken: Handler = (ctx) =>
  withBodyParams(ctx, (params) => {
    const type = required(params, 'grant_type');
    const grant = GRANTS.find((g) => g.type === type && g.available(ctx.sim));
    if (!grant) throw UnsupportedGrantType(`The grant type ${type} is not supported`);
    return grant.handle(ctx, params);
  });
