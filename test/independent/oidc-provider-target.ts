/**
 * An independent OAuth provider, set up as a new user would set up panva's oidc-provider to look
 * like the service of the source: the source's paths, PKCE, refresh tokens rotated on use,
 * revocation, the device flow, three clients matching a target config, its development sign-in
 * and consent pages, lifetimes as the source shows them (7200 s tokens, 300 s device codes), and
 * a tiny resource server answering GET /api/v4/user for its access tokens. Nothing of
 * oidc-provider is changed: what it does differently from the source is what the suites report.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { TargetConfig } from '../../suites/types.js';

/** The redirect URI every client registers: loopback http, as RFC 8252 §7.3 allows for development. */
const REDIRECT_URI = 'http://127.0.0.1:8400/callback';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const GRANTS = ['authorization_code', 'refresh_token', DEVICE_GRANT];
/** The source's scopes (Authentication) and OpenID Connect's. */
const SCOPES = ['openid', 'profile', 'api', 'read_user', 'read_repository', 'write_repository', 'read_registry'];
/** Scopes that reach the user endpoint, as the source's api and read_user do. */
const USER_SCOPES = ['api', 'read_user'];

export interface IndependentProvider {
  config: TargetConfig;
  close(): Promise<void>;
}

function client(id: string, secret: string | undefined, scopes: string[]) {
  return {
    client_id: id,
    ...(secret ? { client_secret: secret, token_endpoint_auth_method: 'client_secret_post' } : {}),
    // The public client is the source's native app: RFC 8252 (loopback, any port) applies to it.
    ...(secret ? {} : { token_endpoint_auth_method: 'none', application_type: 'native' }),
    redirect_uris: [REDIRECT_URI],
    grant_types: GRANTS,
    response_types: ['code'],
    scope: scopes.join(' '),
  };
}

/** GET /api/v4/user: the source's way to prove an access token works (the resource server a deployment has). */
async function currentUser(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? url.searchParams.get('access_token');
  const token = bearer ? await provider.AccessToken.find(bearer) : undefined;
  const scopes = (token?.scope ?? '').split(' ');
  const send = (status: number, body: unknown) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(status === 401 ? { 'www-authenticate': 'Bearer error="invalid_token"' } : {}),
    });
    res.end(JSON.stringify(body));
  };
  if (!token || token.isExpired) return send(401, { message: '401 Unauthorized' });
  if (!scopes.some((s) => USER_SCOPES.includes(s))) return send(403, { error: 'insufficient_scope' });
  send(200, { id: 1, username: token.accountId });
}

/**
 * Start it on loopback. `frontOf` puts something in front (the recording proxy): given the
 * provider's own URL, it answers the URL clients use, which becomes the issuer and the baseUrl.
 */
export async function startOidcProvider(
  frontOf: (url: string) => Promise<string> = async (url) => url,
  options: { refreshTokens?: boolean } = {},
): Promise<IndependentProvider> {
  // oidc-provider's own default, kept with refreshTokens: false: a refresh token only for offline_access.
  const refreshTokens = options.refreshTokens ?? true;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = await frontOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const secrets = { confidential: 'conf-secret-7f3a9c2e41d8', limited: 'lim-secret-0b6e5d1c93a7' };
  const provider = new Provider(baseUrl, {
    clients: [
      client('conformance-confidential', secrets.confidential, ['api', 'read_user', 'openid', 'profile']),
      client('conformance-public', undefined, ['api', 'openid']),
      client('conformance-limited', secrets.limited, ['read_user']),
    ],
    scopes: SCOPES,
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      device_authorization: '/oauth/authorize_device',
      code_verification: '/oauth/device',
      revocation: '/oauth/revoke',
      jwks: '/oauth/discovery/keys',
      userinfo: '/oauth/userinfo',
      introspection: '/oauth/introspect',
    },
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
    },
    // Refresh tokens with the code flow for every client allowed the grant (not only with offline_access),
    // none with the device flow (as the source shows it), rotated on each use.
    issueRefreshToken: async (
      ctx: { oidc: { params?: { grant_type?: string } } },
      c: { grantTypeAllowed(g: string): boolean },
    ) => refreshTokens && c.grantTypeAllowed('refresh_token') && ctx.oidc.params?.grant_type !== DEVICE_GRANT,
    rotateRefreshToken: () => true,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    ttl: {
      AccessToken: 7200,
      AuthorizationCode: 600,
      DeviceCode: 300,
      RefreshToken: 86_400,
      IdToken: 3600,
      Interaction: 3600,
      Session: 86_400,
      Grant: 86_400,
    },
  });
  const oidc = provider.callback();
  server.on('request', (req, res) => {
    if ((req.url ?? '').split('?')[0] === '/api/v4/user' && req.method === 'GET')
      void currentUser(provider, req, res).catch(() => res.writeHead(500).end());
    else oidc(req, res);
  });
  const app = (clientId: string, clientSecret: string | undefined, scopes: string[]) => ({
    clientId,
    ...(clientSecret ? { clientSecret } : {}),
    redirectUri: REDIRECT_URI,
    scopes,
  });
  const config: TargetConfig = {
    baseUrl,
    release: '18.0',
    offering: 'self-managed',
    // Its development pages: a sign-in form with fields `login` and `password` (any pair signs in),
    // a consent page whose only button reads "Continue", a device page whose buttons stand outside their form.
    driver: {
      kind: 'form',
      loginField: 'login',
      passwordField: 'password',
      approveSelector: 'button[autofocus]',
      denySelector: 'button[name=abort]',
    },
    user: { username: 'conformance-user', password: 'any-password-4e1f' },
    applications: {
      confidential: app('conformance-confidential', secrets.confidential, ['api', 'read_user', 'openid']),
      public: app('conformance-public', undefined, ['api', 'openid']),
      limited: app('conformance-limited', secrets.limited, ['read_user']),
    },
  };
  return {
    config,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
