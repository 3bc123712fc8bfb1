/**
 * Client authentication at the token, device and revocation endpoints (RFC 6749 §2.3.1): HTTP
 * Basic with the form-encoded client_id and client_secret, or both in the body, never both ways.
 */
import type { Sim, SimRequest } from '../types.js';
import type { Application } from '../store.js';
import { matchesDigest } from '../digest.js';
import { InvalidClient, InvalidRequest, OAuthError } from './errors.js';
import { formDecode, type Params } from './params.js';

export interface ClientCredentials {
  clientId: string;
  secret: string | null;
}

/**
 * RFC 6749 §2.3.1 with RFC 7617: base64 of `user-id:password`, each form-encoded first. An empty
 * user-id is well-formed (and names no client).
 */
function basicCredentials(header: string): { id: string; pass: string } {
  const malformed = () => InvalidClient('The HTTP Basic credentials are malformed');
  // The scheme and one space go; Node's base64 decoder skips any further whitespace.
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed();
  const id = formDecode(decoded.slice(0, colon));
  const pass = formDecode(decoded.slice(colon + 1));
  if (id === undefined || pass === undefined) throw malformed();
  return { id, pass };
}

export function presentedClient(request: SimRequest, params: Params): ClientCredentials | null {
  const header = request.headers.get('authorization');
  const bodyId = params.get('client_id') || undefined;
  const bodySecret = params.get('client_secret') || undefined;
  if (header && /^Basic\s/i.test(header)) {
    const { id, pass } = basicCredentials(header);
    if (bodySecret !== undefined)
      throw InvalidRequest('Use one client authentication method: HTTP Basic or client_secret in the body, not both');
    if (bodyId !== undefined && bodyId !== id)
      throw InvalidRequest('client_id in the body differs from the HTTP Basic user');
    return { clientId: id, secret: pass || null };
  }
  if (bodyId === undefined) {
    if (bodySecret !== undefined) throw InvalidRequest('client_secret was sent without client_id');
    return null;
  }
  return { clientId: bodyId, secret: bodySecret ?? null };
}

/**
 * The application the request authenticates as. `secret: 'when-confidential'` demands the secret
 * of confidential applications (code, refresh, revoke); `'if-sent'` checks it only when sent
 * (the device flow takes client_id alone, as the source's parameter table shows).
 */
export function authenticateClient(
  sim: Sim,
  credentials: ClientCredentials | null,
  mode: 'when-confidential' | 'if-sent' = 'when-confidential',
): Application {
  if (!credentials) throw InvalidClient('Client authentication failed: client_id is missing');
  const app = sim.store.applications.get(credentials.clientId);
  if (!app) throw InvalidClient('Client authentication failed: unknown client');
  if (credentials.secret !== null) {
    if (!matchesDigest(credentials.secret, app.secretHash))
      throw InvalidClient('Client authentication failed: wrong client secret');
  } else if (app.confidential && mode === 'when-confidential') {
    throw InvalidClient(
      'Client authentication failed: this application is confidential and must send its client secret',
    );
  }
  return app;
}

/**
 * Client authentication whose failure is decided later: the code, refresh and revocation tables
 * have rows for a failed client (client_auth_failed), so the error is carried, not thrown.
 * Anything other than an OAuth error is a bug and propagates.
 */
export function tryAuthenticateClient(
  ctx: { sim: Sim; request: SimRequest },
  params: Params,
): { app: Application | null; clientError: OAuthError | null } {
  try {
    return { app: authenticateClient(ctx.sim, presentedClient(ctx.request, params)), clientError: null };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return { app: null, clientError: error };
  }
}
