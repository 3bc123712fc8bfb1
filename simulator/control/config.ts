/**
 * The target config (spec/target-config.ts) that describes this simulator to the suites
 * and to any client: served by GET /-/simulator/config and written by `simulate --write-config`.
 */
import { profiles } from '../../spec/index.js';
import type { AppConfig, AppRole, TargetConfig } from '../../spec/target-config.js';
import type { Sim } from '../types.js';
import type { Application } from '../store.js';
import { apiFixtures } from '../api/fixtures.js';
import { seeded, type Shown } from '../oauth/accounts.js';
import { FIELDS, SELECTORS } from '../pages/layout.js';

function appConfig(app: Shown<Application, 'secret'>): AppConfig {
  return {
    clientId: app.uid,
    ...(app.confidential ? { clientSecret: app.secret } : {}),
    redirectUri: app.redirectUris[0],
    scopes: [...app.scopes],
  };
}

/** Flags as a client sees them: on, and in force at the simulated release. */
export function features(sim: Sim): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [name, info] of Object.entries(profiles().flags)) out[name] = sim.flag(name) && sim.inForce(info);
  return out;
}

export function targetConfig(sim: Sim, baseUrl: string): TargetConfig {
  const seed = seeded(sim);
  const base = baseUrl.replace(/(?<!\/)\/+$/, '');
  const applications = {} as Record<AppRole, AppConfig>;
  for (const [role, app] of Object.entries(seed.applications) as [AppRole, Shown<Application, 'secret'>][])
    applications[role] = appConfig(app);
  return {
    baseUrl: base,
    issuer: sim.options.issuer ?? base,
    release: sim.options.release,
    offering: sim.options.offering,
    features: features(sim),
    driver: {
      // Without the control API only the HTML forms can play the user.
      kind: sim.options.control ? 'simulator' : 'form',
      signInPath: '/users/sign_in',
      loginField: FIELDS.login,
      passwordField: FIELDS.password,
      approveSelector: SELECTORS.approve,
      denySelector: SELECTORS.deny,
    },
    user: { username: seed.admin.username, password: seed.admin.password },
    personalAccessToken: seed.personalAccessToken,
    applications,
    fixtures: apiFixtures(sim),
  };
}
