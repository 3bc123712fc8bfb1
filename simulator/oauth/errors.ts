/**
 * Protocol errors as named values carrying their own status (RFC 6749 §5.2, RFC 8628 §3.5,
 * RFC 6750 §3.1). A grant throws one; core.ts answers it with the OAuth error body.
 * invalid_client answers 401 with a WWW-Authenticate challenge (unauthorized_client is a 400 like
 * every other token error, RFC 6749 §5.2); token and
 * error responses are never cached.
 */
import { ERROR_DESCRIPTION_CHARACTERS } from '../../spec/index.js';
import { HttpError } from '../errors.js';
import { jsonText, type Reply } from '../http.js';
import type { Sim } from '../types.js';

/** RFC 6749 §5.2: error_description holds %x20-21 / %x23-5B / %x5D-7E only; what a request put there (a name, a scope) loses the others, so the challenge can quote it too. */
const OUTSIDE = new RegExp(`[^${ERROR_DESCRIPTION_CHARACTERS}]`, 'g');
const describable = (text: string) => text.replace(OUTSIDE, '');

export class OAuthError extends HttpError {
  readonly description: string;
  constructor(
    readonly error: string,
    description: string,
    status = 400,
  ) {
    super(status, describable(description));
    this.description = describable(description);
  }

  /** The body as JSON text, made when first answered: a table row's error is answered many times. */
  private text?: string;

  body(): unknown {
    return { error: this.error, error_description: this.description };
  }

  /** Never cached; a 401/403 names its challenge unless a fault drops it. */
  override toResponse(sim: Sim): Reply {
    let headers = noStore(sim, 'token-error-cacheable');
    let status = this.status;
    if (status === 401 || status === 403) {
      if (sim.fault('invalid-client-no-challenge') && this.error === 'invalid_client') status = 400;
      else headers = { ...headers, 'www-authenticate': challenge(this) };
    }
    return jsonText(status, (this.text ??= JSON.stringify(this.body())), headers);
  }
}

const named = (error: string, status: number) => (description: string) => new OAuthError(error, description, status);

export const InvalidRequest = named('invalid_request', 400);
export const InvalidClient = named('invalid_client', 401);
export const InvalidGrant = named('invalid_grant', 400);
export const UnauthorizedClient = named('unauthorized_client', 400);
export const UnsupportedGrantType = named('unsupported_grant_type', 400);
export const InvalidScope = named('invalid_scope', 400);
export const AuthorizationPending = named('authorization_pending', 400);
export const SlowDown = named('slow_down', 400);
export const ExpiredToken = named('expired_token', 400);
export const AccessDenied = named('access_denied', 400);
/** RFC 6750 §3.1: a resource request with a bad token. */
export const InvalidToken = named('invalid_token', 401);
export const InsufficientScope = named('insufficient_scope', 403);

/**
 * Headers every token-endpoint answer carries (RFC 6749 §5.1): never cached. `fault` drops them:
 * token-cacheable from the answers carrying tokens, token-error-cacheable from the refusals.
 */
export function noStore(
  sim: Sim,
  fault: 'token-cacheable' | 'token-error-cacheable' = 'token-cacheable',
): Readonly<Record<string, string>> {
  return sim.fault(fault) ? NONE : NO_STORE;
}
// Shared by every answer that takes them (read, never written: json() copies them into its Reply).
const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store', pragma: 'no-cache' });
const NONE: Readonly<Record<string, string>> = Object.freeze({});

function challenge(error: OAuthError): string {
  // Client authentication failures name the Basic scheme (RFC 6749 §5.2); resource errors Bearer.
  const scheme = error.error === 'invalid_client' ? 'Basic' : 'Bearer';
  return `${scheme} realm="oauth", error="${error.error}", error_description="${error.description}"`;
}
