/**
 * Ory Hydra with its login and consent application on another origin (another port of 127.0.0.1,
 * named in trustedOrigins), both pages with a "Remember me" box ticked: every authorization goes
 * to the login application (`/login?login_challenge=…`), which, remembering the user, accepts at
 * once and sends the browser back with a verifier; the consent application does the same for a
 * client and scopes it remembers. `prompt=consent` (grants.consent-denied asks it) shows the
 * consent again, as Hydra does. Hydra has no REST API and, here, no device authorization endpoint.
 *
 * Both drivers: the session lives on between visits (one password for the run), the deny visit
 * meets the consent again and denies, every check passes; the absent device endpoint is said once
 * (DEV-AVAILABILITY) and the device check that needs it is skipped, never failed. A provider that
 * ignores prompt=consent shows the deny visit nothing to deny: grants.consent-denied is skipped
 * saying so, never errored nor failed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, everything404, listen, sendAnswer, simulatorWith, type Loopback } from '../suites/loopback.js';
import { checksWith, expectAllPassed, explain, PAGE_DRIVERS, rulesWith, runWithDriver } from './provider.js';
import { consentKey, decideAt, hiddenFields } from './consent-form.js';

const CHECKS = [
  'grants.state-unchanged',
  'grants.consent-denied',
  'oidc.id-token',
  'grants.pkce-valid-verifier',
  'device.authorization-response',
  'device.token-response',
];

/** The checks that play the pages. */
const GRANTS = CHECKS.filter((c) => !c.startsWith('device.'));

let front: Loopback & { sim: Sim };
let ui: Loopback;

/** Each login challenge: the authorization request's query. */
const logins = new Map<string, URLSearchParams>();
/** Each consent challenge: the consent form's fields, the session it was drawn for, the prompt. */
const consents = new Map<string, { fields: URLSearchParams; cookie: string }>();
/** Each verifier: where it goes back to on the provider, and the session cookies to set there. */
const verifiers = new Map<string, { back: string; cookies: string[] }>();
/** Users the login application remembers (its own cookie), with the session cookies of their sign-in. */
const rememberedLogins = new Map<string, string[]>();
/** Consents remembered: `client_id scope`. */
const rememberedConsents = new Set<string>();
/** What the login and consent application was asked: `METHOD /path`. */
const received: string[] = [];

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Hydra</title></head><body>${body}</body></html>`,
    {
      status,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers },
    },
  );
const redirect = (location: string, cookies: string[] = []) => {
  const headers = new Headers({ location });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(null, { status: 302, headers });
};
const cookieOf = (header: string | undefined, name: string) =>
  (header ?? '')
    .split(/;\s*/)
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);
/** Set-Cookie lines as one Cookie header. */
const asCookie = (setCookies: string[]) => setCookies.map((c) => c.split(';')[0]).join('; ');

/** A verifier going back to `back` on the provider. */
function verified(back: string, cookies: string[] = []): Response {
  const verifier = randomUUID();
  verifiers.set(verifier, { back, cookies });
  return redirect(`${front.url}/oauth2/auth?verifier=${verifier}`);
}

/** The login accepted: back to the provider, which asks for the consent next. */
const loginAccepted = (challenge: string, cookies: string[]) =>
  verified(`${front.url}/oauth2/auth?consent_for=${challenge}`, cookies);

/** The consent step on the provider, the session signed in: remembered, the decision at once; else the consent application. */
async function consentStep(challenge: string, cookie: string): Promise<Response> {
  const query = logins.get(challenge);
  if (!query) return html('<p>unknown challenge</p>', 403);
  const answer = await front.sim.handle(
    new Request(`${front.url}/oauth/authorize?${query}`, {
      headers: { cookie, accept: 'text/html' },
      redirect: 'manual',
    }),
  );
  const page = answer.status === 200 ? await answer.text() : '';
  if (!page.includes('id="consent"')) return answer;
  const fields = hiddenFields(page);
  const key = consentKey(fields);
  const asked = honoursPrompt && query.getAll('prompt').join(' ').split(' ').includes('consent');
  if (rememberedConsents.has(key) && !asked) return decide(fields, 'approve', cookie);
  const id = randomUUID();
  consents.set(id, { fields, cookie });
  return redirect(`${ui.url}/consent?consent_challenge=${id}`);
}

/** The consent form's decision posted to the simulator as the session `cookie`: its redirect. */
const decide = (fields: URLSearchParams, decision: 'approve' | 'deny', cookie: string) =>
  decideAt(front.sim, front.url, fields, decision, cookie);

/** Is the "Remember me" box ticked when a page is drawn (else nothing is remembered: every visit asks)? */
let ticked = true;
/** Does `prompt=consent` show a remembered consent again (else it is ignored, as OAuth 2.0 lets it be)? */
let honoursPrompt = true;
const remember = () =>
  `<label><input type="checkbox" name="remember" value="1"${ticked ? ' checked' : ''}> Remember me</label>`;

beforeAll(async () => {
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', front.url);
    if (url.pathname.startsWith('/api/v4') || url.pathname === '/oauth/authorize_device') {
      everything404(req, res);
      return true;
    }
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      // Hydra judges the request itself (the simulator without a session); a sign-in it asks for
      // is the login application's.
      sendAnswer(
        res,
        front.sim.handle(new Request(url, { headers: { accept: 'text/html' }, redirect: 'manual' })).then((answer) => {
          const location = answer.headers.get('location') ?? '';
          if (answer.status !== 302 || !location.includes('/users/sign_in')) return answer;
          const challenge = randomUUID();
          logins.set(challenge, url.searchParams);
          return redirect(`${ui.url}/login?login_challenge=${challenge}`);
        }),
      );
      return true;
    }
    if (req.method === 'GET' && url.pathname === '/oauth2/auth') {
      req.resume();
      const verifier = verifiers.get(url.searchParams.get('verifier') ?? '');
      const challenge = url.searchParams.get('consent_for');
      if (verifier) sendAnswer(res, Promise.resolve(redirect(verifier.back, verifier.cookies)));
      else if (challenge) sendAnswer(res, consentStep(challenge, req.headers.cookie ?? ''));
      else everything404(req, res);
      return true;
    }
    return false;
  });
  ui = await listen((req, res) => {
    const url = new URL(req.url ?? '/', ui.url);
    received.push(`${req.method} ${url.pathname}`);
    const loginChallenge = url.searchParams.get('login_challenge') ?? '';
    const consentChallenge = url.searchParams.get('consent_challenge') ?? '';
    if (url.pathname === '/login' && logins.has(loginChallenge)) {
      const query = logins.get(loginChallenge)!;
      const known = rememberedLogins.get(cookieOf(req.headers.cookie, 'remember') ?? '');
      const forced = query.getAll('prompt').join(' ').split(' ').includes('login');
      if (req.method === 'GET') {
        req.resume();
        if (known && !forced) return sendAnswer(res, Promise.resolve(loginAccepted(loginChallenge, known)));
        return sendAnswer(
          res,
          Promise.resolve(
            html(
              `<h1>Please log in</h1><form method="post" action="/login?login_challenge=${loginChallenge}"><input type="text" name="user[login]" placeholder="email"><input type="password" name="user[password]">${remember()}<input type="submit" id="accept" value="Log in"></form>`,
            ),
          ),
        );
      }
      return sendAnswer(
        res,
        bodyOf(req).then(async (raw) => {
          const posted = new URLSearchParams(raw.toString('utf8'));
          // The login application checks the password against the simulator's accounts.
          const page = await front.sim.handle(new Request(`${front.url}/users/sign_in`));
          const fields = hiddenFields(await page.text());
          fields.set('user[login]', posted.get('user[login]') ?? '');
          fields.set('user[password]', posted.get('user[password]') ?? '');
          const answer = await front.sim.handle(
            new Request(`${front.url}/users/sign_in`, {
              method: 'POST',
              headers: {
                cookie: asCookie(page.headers.getSetCookie()),
                'content-type': 'application/x-www-form-urlencoded',
                origin: front.url,
              },
              body: fields,
              redirect: 'manual',
            }),
          );
          if (answer.status !== 302)
            return html('<h1>Please log in</h1><p>The username or password is incorrect.</p>', 401);
          const cookies = answer.headers.getSetCookie();
          const accepted = loginAccepted(loginChallenge, cookies);
          if (posted.get('remember') !== '1') return accepted;
          const token = randomUUID();
          rememberedLogins.set(token, cookies);
          accepted.headers.append('set-cookie', `remember=${token}; Path=/; HttpOnly; SameSite=Lax`);
          return accepted;
        }),
      );
    }
    if (url.pathname === '/consent' && consents.has(consentChallenge)) {
      const { fields, cookie } = consents.get(consentChallenge)!;
      if (req.method === 'GET') {
        req.resume();
        const scopes = (fields.get('scope') ?? '').split(' ').map((s) => `<li>${s}</li>`);
        return sendAnswer(
          res,
          Promise.resolve(
            html(
              `<h1>An application requests access to your data!</h1><form method="post" action="/consent?consent_challenge=${consentChallenge}"><ul>${scopes.join('')}</ul>${remember()}<input type="submit" id="accept" name="submit" value="Allow access"><input type="submit" id="reject" name="submit" value="Deny access"></form>`,
            ),
          ),
        );
      }
      return sendAnswer(
        res,
        bodyOf(req).then(async (raw) => {
          const posted = new URLSearchParams(raw.toString('utf8'));
          consents.delete(consentChallenge);
          const approve = posted.get('submit') === 'Allow access';
          if (approve && posted.get('remember') === '1') rememberedConsents.add(consentKey(fields));
          const answer = await decide(fields, approve ? 'approve' : 'deny', cookie);
          return verified(answer.headers.get('location') ?? '/');
        }),
      );
    }
    everything404(req, res);
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
  await ui?.close();
});

describe('Hydra with a login and consent application elsewhere that remembers the user', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: one password for the run, the deny visit denies, the absent device endpoint said once',
    async (kind) => {
      received.length = 0;
      ticked = true;
      rememberedLogins.clear();
      rememberedConsents.clear();
      const run = await runWithDriver(front, kind, CHECKS, { trustedOrigins: [ui.url] });
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'errored', 'warned'), why).toEqual([]);
      expect(rulesWith(run.report, 'failed'), why).toEqual(['DEV-AVAILABILITY']);
      expect(checksWith(run.report, 'failed'), why).toEqual(['device.authorization-response']);
      expect(checksWith(run.report, 'skipped'), why).toEqual(['device.token-response']);
      expect(run.report.checks.find((c) => c.id === 'device.token-response')?.message, why).toMatch(
        /no device authorization endpoint/,
      );
      // The password once; the deny visit's consent shown again (prompt=consent), as the others' first ones.
      expect(
        received.filter((r) => r === 'POST /login'),
        why,
      ).toHaveLength(1);
      expect(received.filter((r) => r === 'POST /consent').length, why).toBeGreaterThanOrEqual(2);
      // Later visits went through the login application remembered (no page), and a remembered consent.
      expect(received.filter((r) => r === 'GET /login').length, why).toBeGreaterThan(1);
      expect(rememberedLogins.size, why).toBe(1);
      expect(rememberedConsents.size, why).toBeGreaterThan(0);
      expect(run.report.rules.find((r) => r.id === 'GRANT-CONSENT-DENIED')?.status, why).toBe('passed');
    },
    120_000,
  );

  // prompt=consent ignored: the deny visit meets no consent; a missing premise of that check alone,
  // skipped saying so (the code handed over a grant to revoke), the run otherwise conforming (exit 0).
  it('form driver, prompt=consent not honoured: grants.consent-denied skipped naming it, every other grants check passes', async () => {
    received.length = 0;
    [ticked, honoursPrompt] = [true, false];
    rememberedLogins.clear();
    rememberedConsents.clear();
    try {
      const run = await runWithDriver(front, 'form', GRANTS, { trustedOrigins: [ui.url] });
      const why = explain(run.report, run.stderr);
      expect(checksWith(run.report, 'failed', 'warned', 'errored'), why).toEqual([]);
      expect(checksWith(run.report, 'skipped'), why).toEqual(['grants.consent-denied']);
      expect(run.report.checks.find((c) => c.id === 'grants.consent-denied')?.message, why).toMatch(
        /prompt=consent, which this check sends, was not honoured.*revoke it in the provider$/,
      );
      expect(run.code, why).toBe(0);
    } finally {
      honoursPrompt = true;
    }
  }, 120_000);

  // Nothing remembered: each authorization's visit meets the login page again, the provider's own
  // session notwithstanding, and signs in there again; the consent each time.
  it.each(PAGE_DRIVERS)(
    '%s driver, the box left unticked: signed in on every visit, every grants check passes',
    async (kind) => {
      received.length = 0;
      ticked = false;
      rememberedLogins.clear();
      rememberedConsents.clear();
      try {
        const run = await runWithDriver(front, kind, GRANTS, { trustedOrigins: [ui.url] });
        const why = expectAllPassed(run);
        const logins = received.filter((r) => r === 'POST /login').length;
        expect(logins, why).toBeGreaterThan(1);
        expect(received.filter((r) => r === 'POST /consent').length, why).toBe(logins);
      } finally {
        ticked = true;
      }
    },
    120_000,
  );
});
