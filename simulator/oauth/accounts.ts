/**
 * Accounts, applications and personal access tokens: creation with validation (shared by the
 * applications page, the control API and the seed), and the seed every simulator starts with.
 * Seeded secrets come from the CSPRNG once per simulator and survive reset(), so a target config
 * written at start stays valid.
 */
import type { AppRole } from '../../spec/target-config.js';
import type { Sim } from '../types.js';
import type { AccessToken, Application, User } from '../store.js';
import { hexId, secret } from '../random.js';
import { digest } from '../digest.js';
import { ControlError } from '../errors.js';
import { firstProblem, tooLong, tooMany } from '../bounds.js';
import { KNOWN_SCOPES, unknownScopes } from './scopes.js';

/**
 * A request to create something failed validation; the message is for the person who sent it.
 * The control API lets it answer 400 `{message}`; the applications page catches it to show a form.
 */
export class ValidationError extends ControlError {}

export interface NewUser {
  username: string;
  password?: string;
  name?: string;
  email?: string;
  admin?: boolean;
  twoFactor?: boolean;
}

/**
 * A record as just created, with the plaintext credential the store does not keep: the record's
 * fields read through (prototype), the plaintext is an own property shown once to the creator.
 */
export type Shown<T, K extends string> = T & Record<K, string>;

function shown<T extends object, K extends string>(record: T, key: K, value: string): Shown<T, K> {
  return Object.assign(Object.create(record) as T, { [key]: value } as Record<K, string>);
}

export function createUser(sim: Sim, input: NewUser): Shown<User, 'password'> {
  const { store } = sim;
  const username = input.username?.trim();
  if (!username || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/.test(username)) {
    throw new ValidationError('username must start with a letter or digit and use only letters, digits, _ . -');
  }
  for (const u of store.users.values()) {
    if (u.username.toLowerCase() === username.toLowerCase()) throw new ValidationError(`username ${username} is taken`);
  }
  const password = input.password || secret(18);
  const user: User = {
    id: store.nextId.user++,
    username,
    name: input.name?.trim() || username,
    email: input.email?.trim() || `${username}@example.com`,
    passwordHash: digest(password),
    admin: input.admin ?? false,
    twoFactor: input.twoFactor ?? false,
    createdAt: sim.clock.nowSeconds(),
  };
  store.users.set(user.id, user);
  return shown(user, 'password', password);
}

/** A redirect URI the service accepts: absolute, no fragment, HTTPS unless in development mode. */
export function redirectUriProblem(sim: Sim, uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI`;
  }
  if (url.hash || uri.includes('#')) return `${uri} must not contain a fragment`;
  if (['javascript:', 'data:', 'file:', 'vbscript:'].includes(url.protocol)) return `${uri} uses a forbidden scheme`;
  if (url.protocol === 'http:' && !sim.options.settings.developmentMode && !sim.fault('http-redirect-accepted'))
    return `${uri} must use HTTPS (plain HTTP is accepted only in development mode)`;
  return null;
}

export interface NewApplication {
  name: string;
  redirectUris: string[];
  scopes: string[];
  confidential?: boolean;
  ownerId?: number | null;
}

export function createApplication(sim: Sim, input: NewApplication): Shown<Application, 'secret'> {
  const { store } = sim;
  const name = input.name?.trim() ?? '';
  if (!name) throw new ValidationError('name is required');
  const redirectUris = (input.redirectUris ?? []).map((u) => u.trim()).filter(Boolean);
  if (redirectUris.length === 0) throw new ValidationError('at least one redirect URI is required');
  const tooBig = firstProblem(
    tooLong('name', name, 'nameMaxLength'),
    tooMany('redirect URI', redirectUris, 'redirectUrisMax'),
    ...redirectUris.map((uri) => tooLong('redirect URI', uri, 'redirectUriMaxLength')),
  );
  if (tooBig) throw new ValidationError(tooBig);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(sim, uri);
    if (problem) throw new ValidationError(problem);
  }
  const scopes = [...new Set(input.scopes ?? [])];
  if (scopes.length === 0) throw new ValidationError(`choose at least one scope of ${KNOWN_SCOPES.join(', ')}`);
  const unknown = unknownScopes(scopes);
  if (unknown.length) throw new ValidationError(`unknown scope ${unknown.join(', ')}`);
  const clientSecret = secret(32, 'gloas-');
  const app: Application = {
    id: store.nextId.application++,
    name,
    uid: hexId(32),
    secretHash: digest(clientSecret),
    redirectUris,
    scopes,
    confidential: input.confidential ?? true,
    ownerId: input.ownerId ?? null,
  };
  store.applications.set(app.uid, app);
  return shown(app, 'secret', clientSecret);
}

export function createPersonalAccessToken(
  sim: Sim,
  userId: number,
  scopes: string[],
  token = secret(20, 'glpat-'),
): Shown<AccessToken, 'token'> {
  const record: AccessToken = {
    digest: digest(token),
    userId,
    applicationId: null,
    scopes,
    createdAt: sim.clock.nowSeconds(),
    expiresIn: null,
    revokedAt: null,
    refreshToken: null,
    fromCode: null,
    kind: 'personal',
  };
  sim.store.accessTokens.set(record.digest, record);
  return shown(record, 'token', token);
}

export type { AppRole };

/**
 * The seeded accounts as the harness needs them. The store keeps only hashes; the plaintext of
 * these seeded credentials is kept here (module state of this simulator) because
 * GET /-/simulator/config hands them out to the harness on the local machine.
 */
export interface Seeded {
  admin: Shown<User, 'password'>;
  user: Shown<User, 'password'>;
  twoFactorUser: Shown<User, 'password'>;
  applications: Record<AppRole, Shown<Application, 'secret'>>;
  personalAccessToken: string;
}

interface SeedSecrets {
  passwords: Record<'admin' | 'user' | 'twoFactorUser', string>;
  apps: Record<AppRole, { uid: string; secret: string }>;
  pat: string;
}

const secrets = new WeakMap<Sim, SeedSecrets>();

function seedSecrets(sim: Sim): SeedSecrets {
  let s = secrets.get(sim);
  if (!s) {
    const app = () => ({ uid: hexId(32), secret: secret(32, 'gloas-') });
    s = {
      passwords: { admin: secret(18), user: secret(18), twoFactorUser: secret(18) },
      apps: { confidential: app(), public: app(), limited: app() },
      pat: secret(20, 'glpat-'),
    };
    secrets.set(sim, s);
  }
  return s;
}

const APPS: Record<AppRole, { name: string; scopes: string[]; confidential: boolean }> = {
  confidential: {
    name: 'Confidential client',
    scopes: [
      'api',
      'read_user',
      'openid',
      'profile',
      'email',
      'read',
      'read_repository',
      'write_repository',
      'read_registry',
      'write_registry',
    ],
    confidential: true,
  },
  public: { name: 'Public PKCE client', scopes: ['api', 'openid'], confidential: false },
  limited: { name: 'Limited client', scopes: ['read_user'], confidential: true },
};

/** The redirect URI of a seeded application; `.test` never resolves, clients only read the Location. */
export function seededRedirectUri(role: AppRole): string {
  return `https://client.test/${role}/callback`;
}

export function seedAccounts(sim: Sim): void {
  const s = seedSecrets(sim);
  const admin = createUser(sim, { username: 'root', name: 'Administrator', password: s.passwords.admin, admin: true });
  const user = createUser(sim, { username: 'developer', name: 'Dev Eloper', password: s.passwords.user });
  const twoFactorUser = createUser(sim, {
    username: 'two-factor',
    name: 'Two Factor',
    password: s.passwords.twoFactorUser,
    twoFactor: true,
  });
  const applications = {} as Record<AppRole, Shown<Application, 'secret'>>;
  for (const role of Object.keys(APPS) as AppRole[]) {
    const created = createApplication(sim, {
      ...APPS[role],
      redirectUris: [seededRedirectUri(role)],
      ownerId: admin.id,
    });
    // Stable identifiers across reset: re-key the record under the seeded uid and secret.
    const app = Object.getPrototypeOf(created) as Application;
    sim.store.applications.delete(app.uid);
    app.uid = s.apps[role].uid;
    app.secretHash = digest(s.apps[role].secret);
    sim.store.applications.set(app.uid, app);
    applications[role] = shown(app, 'secret', s.apps[role].secret);
  }
  createPersonalAccessToken(sim, admin.id, ['api'], s.pat);
  sim.state<Seeded>('oauth:seeded', () => ({ admin, user, twoFactorUser, applications, personalAccessToken: s.pat }));
}

export function seeded(sim: Sim): Seeded {
  return sim.state<Seeded>('oauth:seeded', () => {
    throw new Error('seedAccounts has not run');
  });
}

export function applicationById(sim: Sim, id: number | null): Application | undefined {
  for (const app of sim.store.applications.values()) if (app.id === id) return app;
  return undefined;
}
