/**
 * Browser sessions of the HTML pages: an HttpOnly cookie naming a server-side session, one CSRF
 * token per session, and a fresh session id on sign-in (no fixation). The session's createdAt is
 * the time of sign-in, which the id_token reports as auth_time. The store keeps only the digest
 * of the id (AUTH-CREDENTIALS-STORED-HASHED) and no CSRF token at all: the token is a keyed hash
 * of the presented id, so a session's secrets are nowhere in memory between requests.
 */
import type { Sim, SimRequest } from '../types.js';
import type { Session, User } from '../store.js';
import { secret } from '../random.js';
import { digest } from '../digest.js';
import { makeRoom, MOST_HELD } from '../evict.js';
import { sameSecret } from './compare.js';
import { requestUrl } from '../request.js';

export const SESSION_COOKIE = '_idp_session';
/** Before sign-in: a random value tied to the form's CSRF token, with nothing stored server-side. */
export const PRE_SESSION_COOKIE = '_idp_presession';

/**
 * A cookie's value; none when it is sent twice. Cookies ignore ports: a page on another port of
 * this host can set one of the same name with a narrower path, which the browser sends first, and
 * nothing tells which is ours (review 25): another account's session, or a pre-session whose form
 * token that page knows (login CSRF). Both count as none: signed out, or a fresh pre-session.
 */
function cookieValue(request: SimRequest, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  let value: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    // Stryker disable next-line EqualityOperator: a part starting with '=' has an empty name, never ours
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      if (value !== undefined) return undefined;
      value = part.slice(eq + 1).trim();
    }
  }
  return value;
}

/** The session a request's cookie names, with the CSRF token of that cookie's id. */
function presentedSession(sim: Sim, request: SimRequest): { session: Session; csrf: string } | undefined {
  const id = cookieValue(request, SESSION_COOKIE);
  // Stryker disable next-line ConditionalExpression: no session has an empty or undefined id either
  const session = id ? sim.store.sessions.get(digest(id)) : undefined;
  return session && { session, csrf: sessionCsrf(id!) };
}

export function sessionOf(sim: Sim, request: SimRequest): Session | undefined {
  return presentedSession(sim, request)?.session;
}

/** The CSRF token of a session id: derived, never stored (distinct from a pre-session's by its prefix). */
export function sessionCsrf(id: string): string {
  return digest(`csrf-session:${id}`);
}

/** A new session; its id (the cookie value) is returned, the store keeps only its digest. */
function createSession(sim: Sim, userId: number): string {
  const id = secret(32);
  const session: Session = { digest: digest(id), userId, createdAt: sim.clock.nowSeconds() };
  makeRoom(sim.store.sessions, MOST_HELD.sessions);
  sim.store.sessions.set(session.digest, session);
  return id;
}

/**
 * Reached over HTTPS? The request's own scheme, or, only behind a trusted proxy (--trust-proxy),
 * the first X-Forwarded-Proto value (AUTH-SESSION-COOKIE-SECURE).
 */
export function overHttps(sim: Sim, request: SimRequest): boolean {
  if (requestUrl(request).protocol === 'https:') return true;
  if (!sim.options.trustProxy) return false;
  const forwarded = request.headers.get('x-forwarded-proto')?.split(',')[0].trim().toLowerCase();
  return forwarded === 'https';
}

function cookie(sim: Sim, request: SimRequest, name: string, value: string): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${overHttps(sim, request) ? '; Secure' : ''}`;
}

/** The cookie naming session `id` (as signIn returned it). */
export function sessionCookie(sim: Sim, request: SimRequest, id: string): string {
  return cookie(sim, request, SESSION_COOKIE, id);
}

/**
 * The CSRF token of the sign-in form. A signed-in or existing session keeps its own; a visitor
 * without one gets a pre-session cookie and a token derived from it (keyed hash), so a page view
 * stores nothing: a session is created only at sign-in, when there is something to keep.
 */
export function signInCsrf(sim: Sim, request: SimRequest): { csrf: string; setCookie?: string } {
  const existing = presentedSession(sim, request);
  if (existing) return { csrf: existing.csrf };
  const nonce = cookieValue(request, PRE_SESSION_COOKIE);
  if (nonce && /^[A-Za-z0-9_-]{43}$/.test(nonce)) return { csrf: digest(`csrf:${nonce}`) };
  const fresh = secret(32);
  return { csrf: digest(`csrf:${fresh}`), setCookie: cookie(sim, request, PRE_SESSION_COOKIE, fresh) };
}

/** Is the sign-in form's token the one of this request's session or pre-session cookie? */
export function signInCsrfValid(sim: Sim, request: SimRequest, token: string | null): boolean {
  const existing = presentedSession(sim, request);
  if (existing) return csrfValid(existing.csrf, token);
  const nonce = cookieValue(request, PRE_SESSION_COOKIE);
  return !!nonce && !!token && sameSecret(token, digest(`csrf:${nonce}`));
}

/** The signed-in account of a request, its session and the CSRF token its forms carry. */
export function signedIn(sim: Sim, request: SimRequest): { session: Session; user: User; csrf: string } | null {
  const presented = presentedSession(sim, request);
  const user = presented ? sim.store.users.get(presented.session.userId) : undefined;
  return presented && user ? { ...presented, user } : null;
}

/** Replace the session with a signed-in one (the old id stops working); returns the new id. */
export function signIn(sim: Sim, request: SimRequest, user: User): string {
  const old = sessionOf(sim, request);
  if (old) sim.store.sessions.delete(old.digest);
  return createSession(sim, user.id);
}

/** Is `token` the expected CSRF token (that of the request's session, when there is one)? */
export function csrfValid(expected: string | undefined, token: string | undefined | null): boolean {
  return !!expected && !!token && sameSecret(token, expected);
}

/** Where to send a visitor who must sign in first, coming back to `returnTo` (a local path). */
export function signInLocation(returnTo: string): string {
  return `/users/sign_in?redirect_to=${encodeURIComponent(returnTo)}`;
}

/**
 * Only a same-origin path is followed after sign-in (GRANT-SIGN-IN-RETURN-SAME-ORIGIN): it must
 * start with one `/`, hold no control character, space or backslash (which browsers and URL
 * parsers drop or read as `/`, turning `/\t/evil.example` into a host), and resolve against our
 * own origin to that origin. Nothing is stripped: a value that fails is replaced by `fallback`
 * as a whole. The answer is the URL's own serialization (percent-encoded, safe in a header).
 */
export function safeReturnPath(value: string | null | undefined, fallback: string, origin: string): string {
  if (!value || !value.startsWith('/') || /[\u0000-\u0020\u007f\\]/.test(value)) return fallback;
  let url: URL;
  let own: URL;
  try {
    own = new URL(origin);
    url = new URL(value, own);
  } catch {
    return fallback;
  }
  const path = url.pathname + url.search + url.hash;
  // `/.//evil` normalizes to `//evil`, which would read as a host (and `//@` does not even parse):
  // refused before it is parsed again.
  if (path.startsWith('//')) return fallback;
  // The answer must read back, against our origin, as exactly the URL the value named: that also
  // refuses another origin and user or password parts, which a bare path cannot carry.
  return new URL(path, own).href === url.href ? path : fallback;
}
