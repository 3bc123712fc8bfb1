/**
 * Ory Hydra's layout: the authorization endpoint on the base URL's origin hands the sign-in to a
 * login application on another origin (`/login?login_challenge=…`, here another port of
 * 127.0.0.1), which takes the password and sends the browser back to the provider with a verifier
 * (`/oauth2/auth?login_verifier=…`); the consent follows on the provider's origin. With
 * `trustedOrigins` naming the login application, both drivers sign in there and the checks pass;
 * without, the password goes nowhere: said once, on the first check that needed a sign-in, naming
 * the origin and the setting, and what needs a signed-in user is skipped.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import {
  everything404,
  bodyOf,
  listen,
  relayedHeaders,
  sendAnswer,
  simulatorWith,
  type Loopback,
} from '../suites/loopback.js';
import {
  expectAllPassed,
  expectSaidOnce,
  PAGE_DRIVERS,
  runWithDriver,
  startProvider,
  type Provider,
} from './provider.js';
import { signInGoesOn } from '../../suites/drivers/hand-over.js';

const CHECKS = [
  'grants.pkce-valid-verifier',
  'grants.consent-denied',
  'grants.state-unchanged',
  'oidc.id-token',
  'grants.sign-in-required',
  'grants.pkce-method-unsupported',
  'grants.scope-unknown',
];
/**
 * Where the sign-in cannot happen: two checks that need it, to show it said once and the other
 * skipped, and sign-in-required, which must not blame the redirect to the login application.
 */
const SAID_ONCE_CHECKS = ['grants.consent-denied', 'grants.state-unchanged', 'grants.sign-in-required'];
/**
 * Where every authorization request goes to the login application first, whatever it asks: the
 * requests a provider may lawfully meet with a sign-in before refusing them (an unsupported or
 * plain PKCE method, no scope, an unknown scope, openid for an application without it, a response
 * type the document lists) are the sign-in going on there, said once, never an answer to judge;
 * the requests it must refuse without a sign-in (no client_id) may meet its error page there, which
 * cannot be told from the sign-in: skipped, no verdict.
 */
const EVERY_REQUEST_CHECKS = [
  'grants.pkce-method-unsupported',
  'grants.pkce-method-plain',
  'grants.scope-default',
  'grants.scope-unknown',
  'oidc.openid-not-enabled',
  'grants.authorize-missing-parameters',
  'grants.consent-denied',
];
/** The login application of EVERY_REQUEST_CHECKS' provider: another origin (RFC 6454: another host). */
const LOGIN_ELSEWHERE = 'http://127.0.0.2:9/login';

let front: Loopback & { sim: Sim };
let everyRequest: Provider;
let login: Loopback;
/** Where each login challenge goes back to (the simulator's redirect_to). */
const challenges = new Map<string, string>();
/** Each login verifier: the session cookies the sign-in made, and where it goes back to. */
const verifiers = new Map<string, { cookies: string[]; back: string }>();
/** Requests the login application received. */
const received: string[] = [];

/** The simulator's sign-in page, its form sent back to the login application. */
const asLoginPage = async (answer: Response, challenge: string) =>
  new Response(
    (await answer.text()).replace('action="/users/sign_in"', `action="/login?login_challenge=${challenge}"`),
    { status: answer.status, headers: answer.headers },
  );

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET' && url.pathname === '/users/sign_in') {
      const challenge = randomUUID();
      challenges.set(challenge, url.searchParams.get('redirect_to') ?? '/');
      req.resume();
      res.writeHead(302, { location: `${login.url}/login?login_challenge=${challenge}` }).end();
      return true;
    }
    if (url.pathname === '/oauth2/auth' && url.searchParams.has('login_verifier')) {
      const verified = verifiers.get(url.searchParams.get('login_verifier') ?? '');
      req.resume();
      if (!verified) res.writeHead(403, { 'content-type': 'text/plain' }).end('unknown login_verifier');
      else res.writeHead(302, { location: verified.back, 'set-cookie': verified.cookies }).end();
      return true;
    }
    return false;
  });
  base = front.url;
  login = await listen((req, res) => {
    const url = new URL(req.url ?? '/', login.url);
    received.push(`${req.method} ${url.pathname}`);
    const challenge = url.searchParams.get('login_challenge') ?? '';
    const back = challenges.get(challenge);
    if (url.pathname !== '/login' || back === undefined) {
      everything404(req, res);
      return;
    }
    const headers = relayedHeaders(req);
    if (req.method === 'GET') {
      const page = front.sim.handle(
        new Request(`${front.url}/users/sign_in?redirect_to=${encodeURIComponent(back)}`, { headers }),
      );
      sendAnswer(
        res,
        page.then((answer) => asLoginPage(answer, challenge)),
      );
      return;
    }
    sendAnswer(
      res,
      bodyOf(req).then(async (body) => {
        const answer = await front.sim.handle(
          new Request(`${front.url}/users/sign_in`, { method: 'POST', headers, body: new Uint8Array(body) }),
        );
        if (answer.status !== 302) return asLoginPage(answer, challenge);
        const verifier = randomUUID();
        verifiers.set(verifier, { cookies: answer.headers.getSetCookie(), back });
        return new Response(null, {
          status: 302,
          headers: { location: `${front.url}/oauth2/auth?login_verifier=${verifier}` },
        });
      }),
    );
  });
  everyRequest = await startProvider((method, url) =>
    method === 'GET' && url.pathname === '/oauth/authorize'
      ? () => ({ status: 302, headers: { location: `${LOGIN_ELSEWHERE}?login_challenge=abc` } })
      : undefined,
  );
}, 60_000);

afterAll(async () => {
  await front?.close();
  await login?.close();
  await everyRequest?.close();
});

describe("Ory Hydra's login application on another origin", () => {
  it.each(PAGE_DRIVERS)(
    '%s driver, trustedOrigins naming it: signed in there, every check passes',
    async (kind) => {
      received.length = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS, { trustedOrigins: [login.url] }));
      expect(received, why).toContain('POST /login');
    },
    120_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver, trustedOrigins not naming it: nothing sent there, said once, the rest skipped',
    async (kind) => {
      received.length = 0;
      const why = expectSaidOnce(
        await runWithDriver(front, kind, SAID_ONCE_CHECKS),
        new RegExp(`${login.url}/login.*trustedOrigins`),
        SAID_ONCE_CHECKS.length,
      );
      expect(
        received.filter((r) => r.startsWith('POST')),
        why,
      ).toEqual([]);
    },
    120_000,
  );
});

describe('every authorization request sent to a login application on another origin', () => {
  it.each(PAGE_DRIVERS)(
    '%s driver: the sign-in going on there said once, no refusal judged, the rest skipped',
    async (kind) => {
      const run = await runWithDriver(everyRequest, kind, EVERY_REQUEST_CHECKS);
      expectSaidOnce(run, /127\.0\.0\.2:9\/login.*trustedOrigins/, EVERY_REQUEST_CHECKS.length);
    },
    120_000,
  );
});

describe('signInGoesOn: which redirect off the provider, before a decision, is the sign-in going on', () => {
  const uris = ['https://app.example/callback'];
  it('a page elsewhere, no authorization response in it: yes', () => {
    expect(signInGoesOn('https://login.example/login?login_challenge=abc', uris)).toBe(true);
  });
  it("an authorization response anywhere, or the redirect URI's origin (a lookalike path): the provider's answer", () => {
    expect(signInGoesOn('https://evil.example/cb?code=x&state=y', uris)).toBe(false);
    expect(signInGoesOn('https://evil.example/cb#error=access_denied', uris)).toBe(false);
    expect(signInGoesOn('https://app.example/callback.evil', uris)).toBe(false);
    expect(signInGoesOn('http://127.0.0.1:9/cb', uris, 'http://127.0.0.1:9/other')).toBe(false);
  });
});
