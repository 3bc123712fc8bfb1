/** OAuth / OIDC / pages / control API operations, by operationId (spec/openapi.yaml). */
import type { OperationId } from '../../spec/index.js';
import type { Handlers, Middleware, Sim } from '../types.js';
import { oauthAuthorize } from './authorize.js';
import { oauthAuthorizeDecision } from './authorize-decision.js';
import { oauthToken } from './token.js';
import { oauthAuthorizeDevice } from './authorize-device.js';
import { oauthDevicePage } from './device-page.js';
import { oauthDeviceDecision } from './device-decision.js';
import { oauthRevoke } from './revoke.js';
import { oauthTokenInfo } from './token-info.js';
import { oauthUserinfo, oauthUserinfoPost } from './userinfo.js';
import { legacyJwks, legacyJwksStillServed, oauthDiscoveryKeys, openidConfiguration } from './discovery.js';
import { cors } from './cors.js';
import { signIn, signInPage } from '../pages/sign-in.js';
import { applicationsCreate, applicationsPage } from '../pages/applications.js';
import * as control from '../control/index.js';

export { seedAccounts } from './accounts.js';

export const oauthHandlers: Handlers = {
  oauthAuthorize,
  oauthAuthorizeDecision,
  oauthToken,
  oauthAuthorizeDevice,
  oauthDevicePage,
  oauthDeviceDecision,
  oauthRevoke,
  oauthTokenInfo,
  oauthUserinfo,
  oauthUserinfoPost,
  oauthDiscoveryKeys,
  legacyJwks,
  openidConfiguration,
  signInPage,
  signIn,
  applicationsPage,
  applicationsCreate,
  simConfig: control.simConfig,
  simReset: control.simReset,
  simClock: control.simClock,
  simDeviceApprove: control.simDeviceApprove,
  simDeviceDeny: control.simDeviceDeny,
  simCreateApplication: control.simCreateApplication,
  simCreateUser: control.simCreateUser,
  simStats: control.simStats,
  simGetSettings: control.simGetSettings,
  simUpdateSettings: control.simUpdateSettings,
  simCreateToken: control.simCreateToken,
};

export const oauthMiddlewares: Middleware[] = [cors];

/** Operations a fault keeps routed outside their release window (x-since / x-until), by operationId. */
export const oauthGateOverrides: Partial<Record<OperationId, (sim: Sim) => boolean>> = {
  legacyJwks: legacyJwksStillServed,
};
