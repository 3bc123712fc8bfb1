/**
 * A sign-in whose POST is answered 307 Temporary Redirect, as a front that routes the credentials to
 * the service that checks them does (Next.js's NextResponse.redirect and Spring Cloud Gateway's
 * RedirectTo answer 307 unless told otherwise; an Envoy or nginx rule moving `/users/sign_in` to
 * the account service's `/session/password`): RFC 9110 §15.4.8 has the user agent send the same
 * request again, method and body, to the Location, and Chromium does. The provider's handler there
 * takes POST only (a GET is 405). Both page drivers send the form again there, sign in, and every
 * check passes. A 307 to another origin, one trustedOrigins does not name, takes nothing there (the
 * password least of all): the sign-in going on elsewhere is said once, naming the origin, and the
 * other check is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, listen, sendAnswer, simulatorAnswerTo, simulatorWith, type Loopback } from '../suites/loopback.js';
import type { Sim } from '../../simulator/types.js';
import { expectAllPassed, expectSaidOnce, PAGE_DRIVERS, runWithDriver } from './provider.js';

/** An approval and a denial: the first signs in, through the 307. */
const CHECKS = ['grants.state-unchanged', 'grants.consent-denied'];
/** Where the account service checks the password (POST only). */
const PASSWORD = '/session/password';

let front: Loopback & { sim: Sim };
let elsewhere: Loopback;
/** Where the sign-in's 307 points: the provider's own PASSWORD, or another origin's. */
let target = '';
/** 307, or 308 (Permanent Redirect: the same request again too, RFC 9110 §15.4.9). */
let status = 307;
/** The sign-ins the account service took (POST), and the GETs it refused. */
const taken: string[] = [];
/** Requests another origin received. */
const received: string[] = [];

beforeAll(async () => {
  elsewhere = await listen((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(404).end();
  });
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', front.url);
    if (req.method === 'POST' && url.pathname === '/users/sign_in') {
      void bodyOf(req).then(() => res.writeHead(status, { location: target, 'content-length': 0 }).end());
      return true;
    }
    if (url.pathname !== PASSWORD) return false;
    taken.push(req.method ?? '');
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-length': 0 }).end();
      return true;
    }
    // The same request, as the simulator's own sign-in handler takes it.
    sendAnswer(res, simulatorAnswerTo(front.sim, req, new URL('/users/sign_in', front.url)));
    return true;
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
  await elsewhere?.close();
});

describe('the sign-in POST answered 307 Temporary Redirect', () => {
  it.each([...PAGE_DRIVERS.map((kind) => ({ kind, code: 307 })), { kind: 'form' as const, code: 308 }])(
    '$kind driver, $code: the form is sent again, method and body, to the Location; every check passes',
    async ({ kind, code }) => {
      [target, status] = [PASSWORD, code];
      taken.length = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS));
      expect(taken, why).toEqual(['POST']);
    },
    60_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver: a 307 to another origin takes nothing there, said once',
    async (kind) => {
      [target, status] = [`${elsewhere.url}${PASSWORD}`, 307];
      received.length = 0;
      const port = new URL(elsewhere.url).port;
      expectSaidOnce(await runWithDriver(front, kind, CHECKS), new RegExp(`127\\.0\\.0\\.1:${port}`), CHECKS.length);
      expect(received).toEqual([]);
    },
    60_000,
  );
});
