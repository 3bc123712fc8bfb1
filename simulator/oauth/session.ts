/**
 * Browser sessions of the HTML pages: an HttpOnly cookie naming a server-side session, one CSRF
 * token per session, and a fresh session id on sign-in (no fixation). The session's createdAt is
 * the time of sign-in, which the id_token reports as auth_time.
 */
import type { Sim, SimRequest } from '../types.js';
import type { Session, User } from '../store.js';
import { secret } from '../random.js';
import { sameSecret } from './compare.js';

export const SESSION_COOKIE = '_idp_session';

function cookieValue(request: SimRequest, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionOf(sim: Sim, request: SimRequest): Session | undefined {
  const id = cookieValue(request, SESSION_COOKIE);
  return id ? sim.store.sessions.get(id) : undefined;
}

export function createSession(sim: Sim, userId: number | null = null): Session {
  const session: Session = { id: secret(32), userId, csrf: secret(32), createdAt: sim.clock.nowSeconds() };
  sim.store.sessions.set(session.id, session);
  return session;
}

export function sessionCookie(session: Session): string {
  return `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Lax`;
}

/** The session of the request, or a new anonymous one with the cookie to set. */
export function ensureSession(sim: Sim, request: SimRequest): { session: Session; setCookie?: string } {
  const existing = sessionOf(sim, request);
  if (existing) return { session: existing };
  const session = createSession(sim);
  return { session, setCookie: sessionCookie(session) };
}

export function signedIn(sim: Sim, request: SimRequest): { session: Session; user: User } | null {
  const session = sessionOf(sim, request);
  const user = session?.userId != null ? sim.store.users.get(session.userId) : undefined;
  return session && user ? { session, user } : null;
}

/** Replace the session with a signed-in one (the old id stops working). */
export function signIn(sim: Sim, request: SimRequest, user: User): Session {
  const old = sessionOf(sim, request);
  if (old) sim.store.sessions.delete(old.id);
  return createSession(sim, user.id);
}

export function csrfValid(session: Session | undefined, token: string | undefined | null): boolean {
  return !!session && !!token && sameSecret(token, session.csrf);
}

/** Where to send a visitor who must sign in first, coming back to `returnTo` (a local path). */
export function signInLocation(returnTo: string): string {
  return `/users/sign_in?redirect_to=${encodeURIComponent(returnTo)}`;
}

/** Only local paths are followed after sign-in (no open redirect). */
export function safeReturnPath(value: string | null | undefined, fallback: string): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : fallback;
}
