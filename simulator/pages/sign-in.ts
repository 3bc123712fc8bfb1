/** `/users/sign_in`: the sign-in form (CSRF token, session cookie) and its POST. */
import type { Handler } from '../types.js';
import { redirect } from '../http.js';
import { userByLogin } from '../store.js';
import {
  ensureSession,
  csrfValid,
  safeReturnPath,
  sessionCookie,
  signIn as startSession,
  sessionOf,
} from '../oauth/session.js';
import { sameSecret } from '../oauth/compare.js';
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
  const { session, setCookie } = ensureSession(ctx.sim, ctx.request);
  const returnTo = safeReturnPath(ctx.query.get(FIELDS.returnTo), HOME);
  return page(200, 'Sign in', form(session.csrf, returnTo), { setCookie });
};

export const signIn: Handler = async (ctx) => {
  const body = await ctx.body();
  const form_ = body.kind === 'form' ? body.form : new URLSearchParams();
  const session = sessionOf(ctx.sim, ctx.request);
  if (!csrfValid(session, form_.get(FIELDS.csrf))) {
    return messagePage(
      422,
      'Sign-in refused',
      'The form expired or the request was forged (invalid authenticity token). Reload the sign-in page and try again.',
    );
  }
  const returnTo = safeReturnPath(form_.get(FIELDS.returnTo), HOME);
  const user = userByLogin(ctx.sim.store, form_.get(FIELDS.login) ?? '');
  if (!user || !sameSecret(form_.get(FIELDS.password) ?? '', user.password)) {
    return page(401, 'Sign in', form(session!.csrf, returnTo, 'Invalid login or password.'));
  }
  const fresh = startSession(ctx.sim, ctx.request, user);
  return redirect(returnTo, 302, { 'set-cookie': sessionCookie(fresh), 'cache-control': 'no-store' });
};
