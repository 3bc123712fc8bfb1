/**
 * The error family of a path, for answers given before any handler runs (413, 414): the OAuth
 * error body under /oauth, the control API's and the REST API's `{message}` elsewhere.
 */
import { ApiError, ControlError, type HttpError } from './errors.js';
import { OAuthError } from './oauth/errors.js';

export function errorFor(pathname: string, status: number, message: string): HttpError {
  if (pathname === '/oauth' || pathname.startsWith('/oauth/'))
    return new OAuthError('invalid_request', message, status);
  if (pathname.startsWith('/-/simulator/')) return new ControlError(message, status);
  return new ApiError(status, message);
}
