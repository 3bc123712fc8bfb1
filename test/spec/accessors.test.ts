/** The typed accessors: rules and the release/offering/flag filter, machines, operations, schemas. */
import { createAjv } from '../../spec/ajv.js';
import { describe, expect, it } from 'vitest';
import * as spec from '../../spec/index.js';

const ids = (list: { id: string }[]) => new Set(list.map((r) => r.id));

describe('rules', () => {
  it('holds well over 100 rules with the ids other files rely on', () => {
    const all = spec.rules();
    expect(all.length).toBeGreaterThan(150);
    for (const id of [
      'DEV-EXPIRED-TOKEN',
      'DEV-SLOW-DOWN',
      'DEV-AUTHORIZATION-PENDING',
      'DEV-APPROVE',
      'DEV-ACCESS-DENIED',
      'DEV-SUCCESS',
      'DEV-USER-CODE-ONCE',
      'DEV-SINGLE-USE',
      'TOK-DEVICE-RESPONSE-FIELDS',
      'PKCE-VERIFIER-LENGTH',
    ] satisfies spec.RuleId[]) {
      expect(spec.rule(id).id).toBe(id);
    }
  });

  it('rule() names an unknown id in its error', () => {
    expect(() => spec.rule('NOPE-RULE' as spec.RuleId)).toThrow(/unknown rule id NOPE-RULE/);
  });

  it('rulesInForce follows since/until', () => {
    expect(ids(spec.rulesInForce('15.0', 'self-managed'))).not.toContain('CORS-PREFLIGHT');
    expect(ids(spec.rulesInForce('15.1', 'self-managed'))).toContain('CORS-PREFLIGHT');
    expect(ids(spec.rulesInForce('16.9', 'self-managed'))).toContain('VER-JWKS-ALIAS');
    expect(ids(spec.rulesInForce('17.0', 'self-managed'))).not.toContain('VER-JWKS-ALIAS');
    expect(ids(spec.rulesInForce('17.0', 'self-managed'))).toContain('VER-JWKS-REMOVED');
    const at18 = ids(spec.rulesInForce('18.0', 'self-managed'));
    const at19 = ids(spec.rulesInForce('19.0', 'self-managed'));
    expect(at18).toContain('GRANT-PASSWORD-PARAMS');
    expect(at19).not.toContain('GRANT-PASSWORD-PARAMS');
    expect(at19).toContain('VER-PASSWORD-GRANT-REMOVED');
    expect(at18).not.toContain('VER-PASSWORD-GRANT-REMOVED');
    expect(ids(spec.rulesInForce('17.6', 'self-managed'))).toContain('ERR-TREE-MISSING-PATH-EMPTY');
    expect(ids(spec.rulesInForce('17.7', 'self-managed'))).toContain('ERR-TREE-MISSING-PATH-404');
  });

  it('rulesInForce follows the offering', () => {
    expect(ids(spec.rulesInForce('18.0', 'hosted'))).toContain('GRANT-PASSWORD-HOSTED-CLIENT-AUTH');
    expect(ids(spec.rulesInForce('18.0', 'self-managed'))).not.toContain('GRANT-PASSWORD-HOSTED-CLIENT-AUTH');
    expect(ids(spec.rulesInForce('18.0', 'hosted'))).not.toContain('VER-MEMBER-ROLES');
  });

  it('rulesInForce follows flags, defaulting to the profile within the flag window', () => {
    expect(ids(spec.rulesInForce('17.0', 'self-managed'))).not.toContain('DEV-SUCCESS');
    expect(ids(spec.rulesInForce('17.1', 'self-managed'))).toContain('DEV-SUCCESS');
    expect(ids(spec.rulesInForce('17.1', 'self-managed', { device_authorization_grant: false }))).not.toContain(
      'DEV-SUCCESS',
    );
    expect(spec.flagsAt('17.0')).toEqual({ device_authorization_grant: false });
    expect(spec.flagsAt('18.0', { device_authorization_grant: false })).toEqual({ device_authorization_grant: false });
  });
});

describe('profiles', () => {
  it('names every release of the source in order, with the default among them', () => {
    const releases = spec.releases();
    for (const r of ['15.1', '16.5', '16.7', '17.0', '17.1', '17.7', '19.0']) expect(releases).toContain(r);
    expect(releases).toContain(spec.profiles().defaults.release);
    expect([...releases].sort(spec.compareReleases)).toEqual(releases);
  });
  it('tells what changes at a release from the rules themselves', () => {
    const at17 = spec.rulesChangingAt('17.0');
    expect(ids(at17.starting)).toContain('VER-JWKS-REMOVED');
    expect(ids(at17.ending)).toContain('VER-JWKS-ALIAS');
    expect(ids(spec.rulesChangingAt('19.0').ending)).toContain('GRANT-PASSWORD-PARAMS');
    for (const r of spec.releases()) expect(spec.profiles().releases?.[r].description.length).toBeGreaterThan(3);
  });
  it('keeps the keys the simulator reads', () => {
    const p = spec.profiles();
    expect(Object.keys(p.settings)).toEqual(
      expect.arrayContaining([
        'gitPasswordAuth',
        'passwordGrantClientCredentialsOnly',
        'maxOffset',
        'maxUrlLength',
        'rateLimit',
      ]),
    );
    expect(p.flags.device_authorization_grant.since).toBe('17.1');
    expect(p.offerings?.hosted.settings).toEqual({ passwordGrantClientCredentialsOnly: true });
    expect(spec.limits().verifierMinLength).toBeLessThan(spec.limits().verifierMaxLength);
  });
});

describe('machines', () => {
  it('loads every machine of the folder', () => {
    expect(spec.machineNames()).toEqual([
      'access-token',
      'authorization-code',
      'device-authorization',
      'revocation',
      'token-refresh',
    ]);
    for (const name of spec.machineNames()) expect(spec.machine(name).name).toBe(name);
    expect(() => spec.machine('nope')).toThrow(/unknown machine nope/);
  });
  it('step takes the first row whose condition holds, else otherwise', () => {
    const device = spec.machine('device-authorization');
    expect(spec.step(device, 'pending', 'poll', (c) => c === 'too_fast')?.result.error).toBe('slow_down');
    expect(spec.step(device, 'pending', 'poll', () => true)?.result.error).toBe('expired_token');
    expect(spec.step(device, 'pending', 'poll', () => false)?.result.error).toBe('authorization_pending');
    const code = spec.machine('authorization-code');
    expect(spec.step(code, 'exchanged', 'exchange', () => false)).toMatchObject({
      next: 'reused',
      effects: ['revoke_issued_tokens'],
    });
  });
});

describe('openapi', () => {
  it('keeps the operationIds that route the simulator', () => {
    const known = new Set(spec.operations().map((o) => o.operationId));
    for (const id of [
      'oauthAuthorize',
      'oauthAuthorizeDecision',
      'oauthToken',
      'oauthAuthorizeDevice',
      'oauthDevicePage',
      'oauthDeviceDecision',
      'oauthRevoke',
      'oauthTokenInfo',
      'oauthUserinfo',
      'oauthDiscoveryKeys',
      'openidConfiguration',
      'legacyJwks',
      'getCurrentUser',
      'listUsers',
      'listProjects',
      'getProject',
      'listProjectIssues',
      'getProjectIssue',
      'listRepositoryTree',
      'listProjectJobs',
      'listProjectAuditEvents',
      'listPackagePipelines',
      'listRegistryRepositoryTags',
      'listGroups',
      'listGroupAuditEvents',
      'listInstanceAuditEvents',
      'registerRunner',
      'listMemberRoles',
      'createMemberRole',
      'deleteMemberRole',
    ]) {
      expect(known, id).toContain(id);
    }
    expect(spec.operation('legacyJwks').until).toBe('17.0');
    expect(spec.operation('oauthAuthorizeDevice')).toMatchObject({ since: '17.1', flag: 'device_authorization_grant' });
  });

  it('declares the pagination headers on every paginated operation', () => {
    const paginated = spec.operations().filter((o) => (o.raw as Record<string, unknown>)['x-paginated']);
    expect(paginated.length).toBeGreaterThanOrEqual(12);
    for (const op of paginated) {
      const headers = Object.keys((op.raw.responses?.['200'] as { headers?: object }).headers ?? {});
      expect(headers, op.operationId).toEqual([
        'Link',
        'x-next-page',
        'x-page',
        'x-per-page',
        'x-prev-page',
        'x-total',
        'x-total-pages',
      ]);
    }
  });

  // The body schemas say exactly what the source says about each response.
  const ajv = createAjv({ strict: false, allErrors: true });
  ajv.addSchema(spec.openapi(), 'openapi');
  const valid = (name: string, body: unknown) => ajv.getSchema(`openapi#/components/schemas/${name}`)!(body) as boolean;
  const base = { access_token: 'a', expires_in: 7200, created_at: 1 };

  it('token responses: presence rules per grant', () => {
    expect(valid('AuthorizationCodeTokenResponse', { ...base, token_type: 'bearer', refresh_token: 'r' })).toBe(true);
    expect(valid('AuthorizationCodeTokenResponse', { ...base, token_type: 'Bearer', refresh_token: 'r' })).toBe(false);
    expect(valid('AuthorizationCodeTokenResponse', { ...base, token_type: 'bearer' })).toBe(false);
    expect(valid('PasswordTokenResponse', { access_token: 'a', token_type: 'bearer', expires_in: 7200 })).toBe(true);
    expect(
      valid('PasswordTokenResponse', { access_token: 'a', token_type: 'bearer', expires_in: 7200, refresh_token: 'r' }),
    ).toBe(false);
    expect(valid('DeviceTokenResponse', { ...base, token_type: 'Bearer', scope: 'api' })).toBe(true);
    expect(valid('DeviceTokenResponse', { ...base, token_type: 'bearer', scope: 'api' })).toBe(false);
    // L29 shows none, RFC 8628 §3.5 allows one (issue 21).
    expect(valid('DeviceTokenResponse', { ...base, token_type: 'Bearer', scope: 'api', refresh_token: 'r' })).toBe(
      true,
    );
  });

  it('token requests: one schema per grant type', () => {
    expect(
      valid('TokenRequest', {
        grant_type: 'authorization_code',
        client_id: 'c',
        code: 'x',
        redirect_uri: 'u',
        code_verifier: 'v'.repeat(43),
      }),
    ).toBe(true);
    expect(
      valid('TokenRequest', {
        grant_type: 'authorization_code',
        client_id: 'c',
        client_secret: 's',
        code: 'x',
        redirect_uri: 'u',
      }),
    ).toBe(true);
    expect(
      valid('TokenRequest', { grant_type: 'authorization_code', client_id: 'c', code: 'x', redirect_uri: 'u' }),
    ).toBe(false);
    expect(valid('TokenRequest', { grant_type: 'password', username: 'u', password: 'p' })).toBe(true);
    expect(
      valid('TokenRequest', {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: 'd',
        client_id: 'c',
      }),
    ).toBe(true);
    expect(valid('TokenRequest', { grant_type: 'client_credentials', client_id: 'c' })).toBe(false);
  });

  it('token info carries its deprecated aliases; revoke is an empty object', () => {
    const info = {
      resource_owner_id: 1,
      scope: ['api'],
      expires_in: null,
      application: { uid: 'x' },
      created_at: 1,
      scopes: ['api'],
      expires_in_seconds: null,
    };
    expect(valid('TokenInfo', info)).toBe(true);
    const { scopes: _dropped, ...withoutAlias } = info;
    expect(valid('TokenInfo', withoutAlias)).toBe(false);
    expect(valid('RevokeResponse', {})).toBe(true);
    expect(valid('RevokeResponse', { revoked: true })).toBe(false);
    expect(valid('OAuthError', { error: 'invalid_grant', error_description: 'no' })).toBe(true);
  });

  it('lists the CORS preflight paths with their header policy', () => {
    const preflights = spec.corsPreflights();
    expect(preflights.map((p) => p.path).sort()).toEqual(['/oauth/revoke', '/oauth/token', '/oauth/userinfo']);
    for (const p of preflights) {
      expect(p.since).toBe('15.1');
      expect(p.rules).toContain('CORS-X-REQUESTED-WITH-REFUSED');
      expect(p.refusedHeaders).toContain('x-requested-with');
      expect(p.allowedHeaders).not.toContain('x-requested-with');
    }
  });

  it('schema() finds a component and names a missing one', () => {
    expect(spec.schema('DeviceTokenResponse').required).toContain('scope');
    expect(() => spec.schema('Nope')).toThrow(/unknown schema Nope/);
  });
});

describe('target config schema', () => {
  const ajv = createAjv({ strict: false, allErrors: true });
  const check = ajv.compile(spec.targetConfigSchema());
  it('accepts the design example', () => {
    const config = {
      baseUrl: 'http://127.0.0.1:3000',
      release: '18.0',
      offering: 'self-managed',
      features: { device_authorization_grant: true },
      driver: {
        kind: 'simulator',
        signInPath: '/users/sign_in',
        loginField: 'user[login]',
        passwordField: 'user[password]',
      },
      user: { username: 'root', password: 'x' },
      personalAccessToken: 'p',
      applications: {
        confidential: {
          clientId: 'a',
          clientSecret: 'b',
          redirectUri: 'http://127.0.0.1:3000/cb',
          scopes: ['api', 'read_user', 'openid'],
        },
        public: { clientId: 'c', redirectUri: 'http://127.0.0.1:3000/cb', scopes: ['api', 'openid'] },
      },
      fixtures: { project: 'group/subgroup/project' },
    };
    expect(check(config), JSON.stringify(check.errors)).toBe(true);
  });
  it('rejects a missing baseUrl, an unknown offering and an unknown key', () => {
    expect(check({ release: '18.0' })).toBe(false);
    expect(check({ baseUrl: 'http://127.0.0.1:1', offering: 'cloud' })).toBe(false);
    expect(check({ baseUrl: 'http://127.0.0.1:1', bogus: 1 })).toBe(false);
  });
});
