/** `/users/sign_in`: the sign-in form (CSRF token, pre-session cookie) and its POST. */
import type { Handler } from '../types.js';
import { redirect } from '../http.js';
import { userByLogin } from '../store.js';
import {
  safeReturnPath,
  sessionCookie,
  signIn as startSession,
  signInCsrf,
  signInCsrfValid,
} from '../oauth/session.js';
import { matchesDigest } from '../digest.js';
import { accountKey, accountLocked, recordFailure, retryAfter } from '../oauth/throttle.js';
import { FIELDS, esc, hidden, messagePage, page } from './layout.js';

const HOME = '/user_settings/applications';

function form(csrf: string, returnTo: string, error?: string): string {
  return `${error ? `<p id="error" role="alert">${esc(error)}</p>` : ''}
<form id="sign-in" method="post" action="/users/sign_in">
${hidden(FIELDS.csrf, csrf)}
${hidden(FIELDS.returnTo, returnTo)}
<label>Username or email <input type="text" name="${FIELDS.login}" autocomplete="username" required></label>
<label>Password <input type="password" name="${FIELDS.password}" autocomplete="current-password" required></label>
<button type="submit" name="commit" value="sign-in">Sign in</button>
</form>`;
}

export const signInPage: Handler = (ctx) => {
  const { csrf, setCookie } = signInCsrf(ctx.sim, ctx.request);
  const returnTo = safeReturnPath(ctx.query.get(FIELDS.returnTo), HOME, ctx.origin);
  return page(200, 'Sign in', form(csrf, returnTo), { setCookie });
};

export const signIn: Handler = async (ctx) => {
  const { sim, request } = ctx;
  const body = await ctx.body();
  const form_ = body.kind === 'form' ? body.form : new URLSearchParams();
  if (!signInCsrfValid(sim, request, form_.get(FIELDS.csrf))) {
    return messagePage(
      422,
      'Sign-in refused',
      'The form expired or the request was forged (invalid authenticity token). Reload the sign-in page and try again.',
    );
  }
  const { csrf } = signInCsrf(sim, request);
  const returnTo = safeReturnPath(form_.get(FIELDS.returnTo), HOME, ctx.origin);
  const login = form_.get(FIELDS.login) ?? '';
  const user = userByLogin(sim.store, login);
  // AUTH-BRUTE-FORCE-THROTTLED: a throttled account is refused whatever the password.
  const key = accountKey(user, login, ctx);
  if (accountLocked(sim, key)) {
    return messagePage(429, 'Too many attempts', 'Too many failed sign-in attempts. Try again later.', {
      headers: { 'retry-after': String(retryAfter(sim, key)) },
    });
  }
  if (!user || !matchesDigest(form_.get(FIELDS.password) ?? '', user.passwordHash)) {
    recordFailure(sim, key);
    return page(401, 'Sign in', form(csrf, returnTo, 'Invalid login or password.'));
  }
  const id = startSession(sim, request, user);
  return redirect(returnTo, 302, { 'set-cookie': sessionCookie(sim, request, id), 'cache-control': 'no-store' });
};
