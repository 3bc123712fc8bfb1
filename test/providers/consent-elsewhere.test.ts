/**
 * Ory Hydra's consent application on another origin: after the sign-in on the provider's origin,
 * the authorization endpoint hands the decision to a consent application
 * (`/consent?consent_challenge=…`, here another port of 127.0.0.1), which shows the consent form,
 * takes the decision and sends the browser back to the provider with a verifier
 * (`/oauth2/auth?consent_verifier=…`), which redirects to the application. With `trustedOrigins`
 * naming the consent application, both drivers decide there and the checks pass; without, nothing
 * is sent there: said once, naming the origin and the setting, and what needs a decision is
 * skipped.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sim } from '../../simulator/types.js';
import {
  everything404,
  listen,
  relayedHeaders,
  sendAnswer,
  simulatorAnswerTo,
  simulatorWith,
  type Loopback,
} from '../suites/loopback.js';
import { expectAllPassed, expectSaidOnce, PAGE_DRIVERS, runWithDriver } from './provider.js';

const CHECKS = ['grants.pkce-valid-verifier', 'grants.consent-denied', 'grants.state-unchanged', 'oidc.id-token'];
/** Where the decision cannot be made: two checks that need it show it said once and the other skipped. */
const SAID_ONCE_CHECKS = ['grants.consent-denied', 'grants.state-unchanged'];

let front: Loopback & { sim: Sim };
let consent: Loopback;
/** The authorization request (its query) each consent challenge decides. */
const challenges = new Map<string, string>();
/** Where each consent verifier goes back to: the simulator's redirect to the application. */
const verifiers = new Map<string, string>();
/** Requests the consent application received. */
const received: string[] = [];

beforeAll(async () => {
  let base = '';
  front = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      // The consent page the simulator would show is the consent application's to show.
      sendAnswer(
        res,
        simulatorAnswerTo(front.sim, req, url).then((answer) => {
          if (answer.status !== 200) return answer;
          const challenge = randomUUID();
          challenges.set(challenge, url.search);
          return new Response(null, {
            status: 302,
            headers: { location: `${consent.url}/consent?consent_challenge=${challenge}` },
          });
        }),
      );
      return true;
    }
    if (url.pathname === '/oauth2/auth' && url.searchParams.has('consent_verifier')) {
      const back = verifiers.get(url.searchParams.get('consent_verifier') ?? '');
      req.resume();
      if (!back) res.writeHead(403, { 'content-type': 'text/plain' }).end('unknown consent_verifier');
      else res.writeHead(302, { location: back }).end();
      return true;
    }
    return false;
  });
  base = front.url;
  consent = await listen((req, res) => {
    const url = new URL(req.url ?? '/', consent.url);
    received.push(`${req.method} ${url.pathname}`);
    const challenge = url.searchParams.get('consent_challenge') ?? '';
    const query = challenges.get(challenge);
    if (url.pathname !== '/consent' || query === undefined) {
      everything404(req, res);
      return;
    }
    // Cookies go to every port of a host: the provider's session reaches the consent application.
    if (req.method === 'GET') {
      sendAnswer(
        res,
        simulatorAnswerTo(front.sim, req, new URL(`${front.url}/oauth/authorize${query}`)).then(async (answer) => {
          const page = (await answer.text()).replace(
            'action="/oauth/authorize"',
            `action="/consent?consent_challenge=${challenge}"`,
          );
          return new Response(page, { status: answer.status, headers: { 'content-type': 'text/html; charset=utf-8' } });
        }),
      );
      return;
    }
    sendAnswer(
      res,
      simulatorAnswerTo(front.sim, req, new URL(`${front.url}/oauth/authorize`), relayedHeaders(req)).then((answer) => {
        const location = answer.headers.get('location');
        if (answer.status !== 302 || !location) return answer;
        const verifier = randomUUID();
        verifiers.set(verifier, location);
        return new Response(null, {
          status: 302,
          headers: { location: `${front.url}/oauth2/auth?consent_verifier=${verifier}` },
        });
      }),
    );
  });
}, 60_000);

afterAll(async () => {
  await front?.close();
  await consent?.close();
});

describe("Ory Hydra's consent application on another origin", () => {
  it.each(PAGE_DRIVERS)(
    '%s driver, trustedOrigins naming it: decided there, every check passes',
    async (kind) => {
      received.length = 0;
      const why = expectAllPassed(await runWithDriver(front, kind, CHECKS, { trustedOrigins: [consent.url] }));
      expect(received, why).toContain('POST /consent');
    },
    120_000,
  );

  it.each(PAGE_DRIVERS)(
    '%s driver, trustedOrigins not naming it: nothing sent there, said once, the rest skipped',
    async (kind) => {
      received.length = 0;
      const run = await runWithDriver(front, kind, SAID_ONCE_CHECKS);
      // The consent, not the sign-in (done on the provider's origin), is what goes on there.
      const why = expectSaidOnce(
        run,
        new RegExp(
          `^the harness could not complete this check: the provider's consent goes on at ${consent.url}/consent.*consent application.*trustedOrigins`,
        ),
        SAID_ONCE_CHECKS.length,
      );
      expect(run.report.checks.find((c) => c.status === 'skipped')?.message, why).toMatch(
        /^the provider's consent went on at /,
      );
      expect(received, why).toEqual([]);
    },
    120_000,
  );
});
