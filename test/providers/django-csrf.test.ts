/**
 * django-oauth-toolkit's pages: Django's sign-in at /accounts/login/?next=… (fields `username` and
 * `password`) and the toolkit's consent ("Authorize Sample App?", the scopes listed, an unnamed
 * `<input type="submit" value="Cancel">` beside `name="allow" value="Authorize"`: the denial is the
 * form posted without `allow`), both guarded by Django's CSRF protection: a `csrftoken` cookie and,
 * in each form, a hidden `csrfmiddlewaretoken` whose value is masked anew on every page (never the
 * cookie's value itself), checked against the cookie on every POST (403 "CSRF verification failed"
 * otherwise), the cookie rotated at the sign-in. The consent form has no action: it posts to the
 * page's own URL, the authorization request's query and all. Both page drivers sign in, approve and
 * deny as a person does; every check passes, no POST is refused for its CSRF token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorWith, type Loopback } from '../suites/loopback.js';
import { hiddenFields } from './consent-form.js';
import { escaped, page } from './sign-in-journey.js';
import { expectAllPassed, explain, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** An approval, a denial, and a check that needs an id_token: each its own authorization. */
const CHECKS = ['grants.state-unchanged', 'grants.consent-denied', 'oidc.id-token'];
const LOGIN = '/accounts/login/';

let front: Loopback & { sim: Sim };
/** POSTs refused for their CSRF token, and the decisions the consent form posted. */
const refused: string[] = [];
const decided = { allow: 0, cancel: 0 };
/** Sign-ins posted with a CSRF token that matched. */
let signIns = 0;

/** A field's token: a mask and what it makes of the cookie's secret (Django masks it anew on every page). */
const withMask = (mask: string, secret: string) =>
  `${mask}${createHash('sha256')
    .update(mask + secret)
    .digest('hex')
    .slice(0, 32)}`;
const masked = (secret: string) => withMask(randomBytes(8).toString('hex'), secret);
/** Does the field's token unmask to the cookie's secret? */
const unmasks = (field: string, secret: string) => field === withMask(field.slice(0, 16), secret);

const cookieOf = (req: IncomingMessage, name: string) =>
  new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(req.headers.cookie ?? '')?.[1];

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  headers.delete('content-length');
  return headers;
}

/** A page of ours, the simulator's cookies passed on, and a CSRF cookie (`rotate`: a new one). */
function html(status: number, body: string, secret: string, from?: Response, rotate = false): Response {
  const headers = new Headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  for (const cookie of from?.headers.getSetCookie() ?? []) headers.append('set-cookie', cookie);
  if (rotate) headers.append('set-cookie', `csrftoken=${secret}; Path=/; SameSite=Lax`);
  return new Response(body, { status, headers });
}

const forbidden = (what: string) => {
  refused.push(what);
  return new Response(page('Forbidden (403)', '<p>CSRF verification failed. Request aborted.</p>'), {
    status: 403,
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });
};

/** The posted form, if its CSRF token matches the cookie. */
async function checked(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const form = new URLSearchParams((await bodyOf(req)).toString('utf8'));
  const secret = cookieOf(req, 'csrftoken');
  const field = form.get('csrfmiddlewaretoken');
  if (!secret || !field || !unmasks(field, secret)) return undefined;
  form.delete('csrfmiddlewaretoken');
  return form;
}

async function route(req: IncomingMessage, url: URL): Promise<Response | undefined> {
  const sim = front.sim;
  const own = cookieOf(req, 'csrftoken');
  const secret = own ?? randomBytes(16).toString('hex');
  const route = `${req.method} ${url.pathname}`;
  if (route === `GET ${LOGIN}`) {
    const at = new URL('/users/sign_in', url);
    at.searchParams.set('redirect_to', url.searchParams.get('next') ?? '/');
    const answer = await sim.handle(new Request(at, { headers: headersOf(req) }));
    const fields = hiddenFields(await answer.text());
    const form =
      `<form method="post" action="${LOGIN}">` +
      `<input type="hidden" name="csrfmiddlewaretoken" value="${masked(secret)}">` +
      `<input type="hidden" name="authenticity_token" value="${escaped(fields.get('authenticity_token') ?? '')}">` +
      `<p><label for="id_username">Username:</label> <input type="text" name="username" autofocus autocapitalize="none" autocomplete="username" maxlength="150" required id="id_username"></p>` +
      `<p><label for="id_password">Password:</label> <input type="password" name="password" autocomplete="current-password" required id="id_password"></p>` +
      `<input type="submit" value="Log in"><input type="hidden" name="next" value="${escaped(fields.get('redirect_to') ?? '/')}"></form>`;
    return html(200, page('Log in', form), secret, answer, !own);
  }
  if (route === `POST ${LOGIN}`) {
    const form = await checked(req);
    if (!form) return forbidden('sign-in');
    signIns++;
    const body = new URLSearchParams({
      authenticity_token: form.get('authenticity_token') ?? '',
      redirect_to: form.get('next') ?? '/',
      'user[login]': form.get('username') ?? '',
      'user[password]': form.get('password') ?? '',
    });
    const answer = await sim.handle(
      new Request(new URL('/users/sign_in', url), {
        method: 'POST',
        headers: headersOf(req),
        body,
        redirect: 'manual',
      }),
    );
    if (answer.status !== 302) return answer;
    // Django rotates the CSRF token at the sign-in.
    const headers = new Headers(answer.headers);
    headers.append('set-cookie', `csrftoken=${randomBytes(16).toString('hex')}; Path=/; SameSite=Lax`);
    return new Response(null, { status: 302, headers });
  }
  if (url.pathname !== '/oauth/authorize') return undefined;
  if (req.method === 'GET') {
    const answer = await sim.handle(new Request(url, { headers: headersOf(req), redirect: 'manual' }));
    const location = answer.headers.get('location');
    if (answer.status === 302 && location && new URL(location, url).pathname === '/users/sign_in') {
      const headers = new Headers(answer.headers);
      const next = new URL(location, url).searchParams.get('redirect_to') ?? '/';
      headers.set('location', `${LOGIN}?next=${encodeURIComponent(next)}`);
      return new Response(null, { status: 302, headers });
    }
    const text = answer.status === 200 ? await answer.text() : '';
    if (!/<form id="consent"/.test(text)) return answer;
    const fields = hiddenFields(text);
    const hidden = [...fields]
      .map(([k, v]) => `<input type="hidden" name="${escaped(k)}" value="${escaped(v)}">`)
      .join('');
    const scopes = (fields.get('scope') ?? '')
      .split(' ')
      .map((s) => `<li>${escaped(s)}</li>`)
      .join('');
    const consent =
      `<div class="block-center"><form id="authorizationForm" method="post">` +
      `<h3 class="block-center-heading">Authorize Sample App?</h3>` +
      `<input type="hidden" name="csrfmiddlewaretoken" value="${masked(secret)}">${hidden}` +
      `<p>Application requires the following permissions</p><ul>${scopes}</ul>` +
      `<div class="control-group"><div class="controls">` +
      `<input type="submit" class="btn btn-large" value="Cancel"/> ` +
      `<input type="submit" class="btn btn-large btn-primary" name="allow" value="Authorize"/>` +
      `</div></div></form></div>`;
    return html(200, page('Authorize', consent), secret, answer, !own);
  }
  if (req.method !== 'POST') return undefined;
  const form = await checked(req);
  if (!form) return forbidden('consent');
  const allow = form.has('allow');
  decided[allow ? 'allow' : 'cancel']++;
  form.delete('allow');
  form.set('decision', allow ? 'approve' : 'deny');
  const headers = headersOf(req);
  return sim.handle(
    new Request(new URL('/oauth/authorize', url), { method: 'POST', headers, body: form, redirect: 'manual' }),
  );
}

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname !== LOGIN && url.pathname !== '/oauth/authorize') return false;
    sendAnswer(
      res,
      route(req, url).then(
        (answer) => answer ?? front.sim.handle(new Request(url, { headers: headersOf(req), redirect: 'manual' })),
      ),
    );
    return true;
  });
  base = front.url;
}, 60_000);

afterAll(async () => {
  await front?.close();
});

describe("django-oauth-toolkit's sign-in and consent behind Django's CSRF cookie and masked field", () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: signs in, approves with Authorize, denies with the unnamed Cancel; every check passes',
    async (kind) => {
      refused.length = 0;
      decided.allow = decided.cancel = signIns = 0;
      const run = await runWithDriver(front, kind, CHECKS);
      const why = expectAllPassed(run);
      expect(refused, why).toEqual([]);
      expect(signIns, why).toBe(1);
      expect(decided.cancel, why).toBe(1);
      expect(decided.allow, explain(run.report, run.stderr)).toBeGreaterThanOrEqual(1);
    },
    120_000,
  );
});
