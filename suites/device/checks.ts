/** Device authorization grant checks besides the model: response fields, token response, refusals. */
import fc from 'fast-check';
import { limits } from '../../spec/index.js';
import type { Check, CheckContext } from '../types.js';
import {
  broke,
  DEVICE_GRANT,
  expectAccessAlive,
  expectJsonUnasked,
  expectOAuthError,
  expectTokenOk,
  TOKEN_PATH,
  heldScopes,
} from '../shared/oauth.js';
import { expectTokenFields } from '../grants/token-fields.js';
import { jsonObject } from '../shared/json.js';
import { scopesOf } from '../shared/scope-list.js';
import { createBrowser } from '../drivers/form.js';
import { connectedWithoutDecision, NO_WAY_TO_REFUSE } from '../drivers/device-outcome.js';
import { noAnswer } from '../runner/errors.js';
import { DEVICE_FLAG, DEVICE_PREMISE } from '../runner/capabilities.js';
import type { HtmlForm } from '../drivers/html.js';
import {
  authorizeDevice,
  authorizeDeviceApp,
  absoluteUrl,
  clockMoves,
  AUTHORIZE_DEVICE_PATH,
  deviceApp,
  expectDeviceAuthorizationFields,
  expectDeviceTimings,
  needTime,
  poll,
  pollPaced,
  startDevice,
  wait,
} from './flow.js';
import { deviceCommands, fixedSequences, machineRules, runModel } from './model.js';

export const deviceChecks: Check[] = [
  {
    id: 'device.state-machine',
    suite: 'device',
    title:
      'Every sequence of polls, fast polls, approvals, denials and waiting answers as the device state table predicts',
    rules: [...machineRules(), 'DEV-SLOW-DOWN-INTERVAL-GROWS', 'DEV-TOKEN-PARAMS'],
    needs: ['device'],
    async run(t: CheckContext) {
      needTime(t);
      await t.property(deviceCommands(!clockMoves(t)), (commands) => runModel(t, commands));
      // A fixed sequence dropped (fc.pre: a denial the page cannot take) is no verdict either way.
      for (const commands of fixedSequences(clockMoves(t)))
        await runModel(t, commands).catch((error: unknown) => {
          if (!fc.PreconditionFailure.isFailure(error)) throw error;
        });
    },
  },
  {
    id: 'device.expired-token',
    suite: 'device',
    title: 'Once the device code lifetime has passed, polls answer expired_token, also after the user approves',
    rules: ['DEV-EXPIRED-TOKEN', 'DEV-AUTHORIZATION-PENDING'],
    needs: ['device'],
    async run(t: CheckContext) {
      needTime(t);
      const start = await startDevice(t);
      expectOAuthError(
        t,
        await pollPaced(t, start, 'first poll of a fresh device code', ['DEV-AUTHORIZATION-PENDING']),
        { status: 400, error: 'authorization_pending', rules: ['DEV-AUTHORIZATION-PENDING'] },
        'first poll of a fresh device code',
      );
      // The last interval of the lifetime the response gave (when it holds two): the code still
      // lives (L80), pending.
      const last = start.expiresIn > 2 * start.interval ? start.expiresIn - start.interval : 0;
      if (last) {
        await wait(t, last);
        expectOAuthError(
          t,
          await poll(t, start.deviceCode),
          { status: 400, error: 'authorization_pending', rules: ['DEV-AUTHORIZATION-PENDING'] },
          `poll ${last} s after the device code was issued, within its expires_in of ${start.expiresIn} s`,
        );
      }
      // One second past the lifetime: whether the very second 300 is still inside it, nobody says (RFC 8628 §3.2).
      await wait(t, start.expiresIn + 1 - last);
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'expired_token', rules: ['DEV-EXPIRED-TOKEN'] },
        `poll ${start.expiresIn + 1} s after the device code was issued`,
      );
      await t.driver.approveDevice(start.userCode, start.verificationUri).catch(noAnswer);
      await wait(t, start.interval);
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'expired_token', rules: ['DEV-EXPIRED-TOKEN'] },
        'poll after the user tried to approve an expired code',
      );
    },
  },
  {
    id: 'device.slow-down',
    suite: 'device',
    title: 'A poll sooner than the interval after the previous one answers slow_down',
    rules: ['DEV-SLOW-DOWN', 'DEV-AUTHORIZATION-PENDING'],
    needs: ['device'],
    async run(t: CheckContext) {
      const start = await startDevice(t);
      expectOAuthError(
        t,
        await pollPaced(t, start, 'first poll of a fresh device code', ['DEV-AUTHORIZATION-PENDING']),
        { status: 400, error: 'authorization_pending', rules: ['DEV-AUTHORIZATION-PENDING'] },
        'first poll of a fresh device code',
      );
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'slow_down', rules: ['DEV-SLOW-DOWN'] },
        'a second poll at once',
      );
    },
  },
  {
    id: 'device.slow-down-interval-grows',
    suite: 'device',
    title: 'After slow_down the interval grows by the increment: the old pace is still too fast, the grown one is not',
    rules: ['DEV-SLOW-DOWN-INTERVAL-GROWS'],
    needs: ['device'],
    async run(t: CheckContext) {
      needTime(t);
      const { slowDownIncrement } = limits();
      const start = await startDevice(t);
      await poll(t, start.deviceCode);
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'slow_down' },
        'a second poll at once',
      );
      let interval = start.interval + slowDownIncrement;
      await wait(t, start.interval);
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'slow_down' },
        `a poll after the first interval (${start.interval} s), before the grown one (${interval} s)`,
      );
      interval += slowDownIncrement;
      await wait(t, interval);
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'authorization_pending' },
        `a poll after the grown interval (${interval} s)`,
      );
    },
  },
  {
    id: 'device.single-use',
    suite: 'device',
    title: 'An authorized device code yields tokens once; the next poll is refused with invalid_grant',
    rules: ['DEV-SINGLE-USE'],
    needs: ['device'],
    async run(t: CheckContext) {
      needTime(t);
      const start = await startDevice(t);
      await t.driver.approveDevice(start.userCode, start.verificationUri);
      const first = 'first poll after approval';
      expectTokenOk(t, await pollPaced(t, start, first, ['DEV-APPROVE', 'DEV-SUCCESS']), first);
      await wait(t, start.interval);
      expectOAuthError(
        t,
        await poll(t, start.deviceCode),
        { status: 400, error: 'invalid_grant' },
        'a poll after the tokens were issued',
      );
    },
  },
  {
    id: 'device.authorization-response',
    suite: 'device',
    title: 'POST /oauth/authorize_device returns device_code, user_code, verification URIs, expires_in and interval',
    rules: ['DEV-AVAILABILITY', 'DEV-AUTHORIZE-RESPONSE', 'DEV-VERIFICATION-URI-COMPLETE', 'DEV-AUTHORIZE-PARAMS'],
    needs: ['device'],
    async run(t: CheckContext) {
      const start = await startDevice(t);
      expectDeviceAuthorizationFields(t, start);
      // Once more as a client that sends no Accept: the device authorization response is JSON all the same.
      const unasked = await authorizeDeviceApp(t, start.scope, { accept: undefined });
      expectJsonUnasked(t, unasked, start.response, `POST ${AUTHORIZE_DEVICE_PATH}`, [
        'DEV-AUTHORIZE-RESPONSE',
        'ENC-RESPONSE-JSON',
      ]);
    },
  },
  {
    id: 'device.authorization-timings',
    suite: 'device',
    title: 'The device code lives 300 seconds and the polling interval is 5 seconds',
    rules: ['DEV-CODE-LIFETIME', 'DEV-POLL-INTERVAL'],
    needs: ['device'],
    async run(t: CheckContext) {
      expectDeviceTimings(t, await startDevice(t));
    },
  },
  {
    id: 'device.authorize-refusals',
    suite: 'device',
    title: 'POST /oauth/authorize_device without client_id gives invalid_request, with an unknown one invalid_client',
    rules: ['DEV-AUTHORIZE-PARAMS'],
    needs: ['device'],
    async run(t: CheckContext) {
      expectOAuthError(
        t,
        await authorizeDevice(t, { scope: 'api' }),
        { status: 400, error: 'invalid_request' },
        'device authorization without client_id',
      );
      await t.property(fc.stringMatching(/^[0-9a-f]{8,64}$/), async (clientId) => {
        if (Object.values(t.config.applications ?? {}).some((a) => a?.clientId === clientId)) return;
        expectOAuthError(
          t,
          await authorizeDevice(t, { client_id: clientId }),
          { status: [400, 401], error: 'invalid_client' },
          'device authorization for an unknown client_id',
        );
      });
    },
  },
  {
    id: 'device.token-response',
    suite: 'device',
    title:
      'After approval the first poll returns the device token response: Bearer, scope, created_at; the token works',
    rules: [
      'DEV-APPROVE',
      'DEV-SUCCESS',
      'DEV-TOKEN-PARAMS',
      'TOK-DEVICE-RESPONSE-FIELDS',
      'TOK-TYPE-DEVICE-BEARER',
      'TOK-TYPE-BEARER',
      'TOK-SCOPE-DEVICE',
      'TOK-SCOPE-SPACE-DELIMITED',
      'TOK-VERIFY-USER',
    ],
    needs: ['device'],
    async run(t: CheckContext) {
      const start = await startDevice(t);
      await t.driver.approveDevice(start.userCode, start.verificationUri);
      // No token on the first poll after approval: the approval did not take, or the poll was not answered.
      const first = 'first poll after the user approved';
      const body = expectTokenOk(t, await pollPaced(t, start, first, ['DEV-APPROVE', 'DEV-SUCCESS']), first, [
        'DEV-APPROVE',
        'DEV-SUCCESS',
        'DEV-TOKEN-PARAMS',
      ]);
      expectTokenFields(t, body, 'device_code', 'device token response');
      const requested = start.scope.split(' ').sort().join(' ');
      t.expect(
        typeof body.scope === 'string' && scopesOf(body.scope).sort().join(' ') === requested,
        'the device token response must carry the requested scope',
        broke(['TOK-SCOPE-DEVICE'], { requested: start.scope, scope: body.scope }),
      );
      await expectAccessAlive(t, body.access_token, 'device flow access token', ['TOK-VERIFY-USER']);
      const held = await heldScopes(t, body, start.scope.split(' '));
      t.soft(
        held.join(' ') === requested,
        'the device token must hold the requested scope',
        broke(['TOK-SCOPE-DEVICE'], { scope: held }),
      );
    },
  },
  {
    id: 'device.unknown-device-code',
    suite: 'device',
    title: 'A device code the provider never issued is refused with invalid_grant',
    rules: ['DEV-UNKNOWN-DEVICE-CODE'],
    needs: ['device'],
    async run(t: CheckContext) {
      await t.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 }), async (code) => {
        expectOAuthError(
          t,
          await poll(t, code),
          { status: 400, error: 'invalid_grant' },
          'poll with a device code never issued',
        );
      });
    },
  },
  {
    id: 'device.client-bound',
    suite: 'device',
    title: 'A device code polled by another client is refused with invalid_grant and stays usable by its own',
    rules: ['DEV-CLIENT-BOUND'],
    needs: ['device'],
    async run(t: CheckContext) {
      const own = deviceApp(t);
      const other = (['confidential', 'limited', 'public'] as const).find(
        (r) => r !== own && t.config.applications?.[r],
      );
      if (!other) t.skip(`needs a second application in the target config besides the device flow's (${own})`);
      const start = await startDevice(t);
      await t.driver.approveDevice(start.userCode, start.verificationUri);
      expectOAuthError(
        t,
        await pollPaced(t, start, 'poll by another client', ['DEV-CLIENT-BOUND'], other),
        { status: 400, error: 'invalid_grant' },
        'poll by a client the device code was not issued to',
      );
      // At once: the other client's refused poll was no poll of this client's. A provider that paces
      // it anyway answers slow_down, which pollPaced waits out (no clock or --slow needed for a short one).
      const mine = await pollPaced(t, start, 'poll by the client the code was issued to', ['DEV-CLIENT-BOUND'], own);
      // Still pending for its own client: the approval never took, device.token-response's failure.
      if (jsonObject(mine)?.error === 'authorization_pending')
        t.skip(
          "the own client's poll after the approval is still authorization_pending: the approval did not take, judged by device.token-response (DEV-APPROVE, DEV-SUCCESS)",
        );
      expectTokenOk(t, mine, 'poll by the client the approved device code was issued to');
    },
  },
  {
    id: 'device.unknown-user-code',
    suite: 'device',
    title: 'Approving a user code that matches no device code changes no device code',
    rules: ['DEV-UNKNOWN-USER-CODE'],
    needs: ['device'],
    async run(t: CheckContext) {
      const start = await startDevice(t);
      const bogus = start.userCode.length > 1 ? [...start.userCode].reverse().join('') + 'Q' : 'NOPE-NOPE';
      await t.driver.approveDevice(bogus, start.verificationUri).catch(noAnswer);
      expectOAuthError(
        t,
        await pollPaced(t, start, 'poll after another user code was approved', ['DEV-AUTHORIZATION-PENDING']),
        { status: 400, error: 'authorization_pending' },
        'poll after another user code was approved',
      );
    },
  },
  {
    id: 'device.verification-page',
    suite: 'device',
    title:
      'GET /oauth/device is an HTML form with the user code prefilled from the query; deciding there reaches the device',
    rules: ['DEV-VERIFICATION-PAGE'],
    needs: ['device'],
    async run(t: CheckContext) {
      const start = await startDevice(t);
      // The page with user_code in its query, built here from verification_uri: what
      // verification_uri_complete holds is DEV-VERIFICATION-URI-COMPLETE's to judge, not this rule's.
      const page = absoluteUrl(start.verificationUri);
      // Without it the response is wrong (its rule's failure) and the page is untested: nobody named it.
      t.expect(page, 'verification_uri must be an absolute URL', broke(['DEV-AUTHORIZE-RESPONSE']));
      // The page the provider sends its users to is the service's GET /oauth/device (L39, L109): one
      // on another origin (Google's, Entra ID's, GitHub's) than the target's or a trusted one is not
      // this page, and the harness does not sign in there (nothing is sent): the rule fails, once.
      const away = t.http.leaves(page.href);
      t.expect(
        !away,
        `verification_uri ${away}, not the service's GET /oauth/device: nothing was sent there (trustedOrigins lists the provider's other origins)`,
        broke(['DEV-VERIFICATION-PAGE']),
      );
      page.searchParams.set('user_code', start.userCode);
      // Play the user through the real pages (sign-in first), whatever driver the run uses.
      let form: HtmlForm | undefined;
      const result = await createBrowser(t.http, t.config).browse(page.href, 'deny', (f) => {
        form = f;
        return {};
      });
      // A page that connects the device on the sign-in (L84: the code entered and the user
      // authenticated) decides nothing itself: it is the page L109 names, its refusal untested.
      const connected = connectedWithoutDecision(result, page.href);
      t.expect(
        form && (result.decided || connected),
        'the verification page must be an HTML form the user can decide on',
        {
          status: result.response.status,
        },
      );
      const field = form.fields.find((f) => /user_?code/i.test(f.name));
      t.expect(field, 'the verification form must have a user code field', { fields: form.fields.map((f) => f.name) });
      t.expect(field.value === start.userCode, 'the verification form must prefill the user code given in the query', {
        prefilled: Boolean(field.value),
      });
      if (connected) t.skip(`${NO_WAY_TO_REFUSE}: the denial on it is not tested`);
      expectOAuthError(
        t,
        await pollPaced(t, start, 'poll after the user denied on the verification page', ['DEV-ACCESS-DENIED']),
        { status: 400, error: 'access_denied' },
        'poll after the user denied on the verification page',
      );
    },
  },
  {
    id: 'device.unavailable',
    suite: 'device',
    title:
      'Where the device grant is not available, /oauth/authorize_device answers 404 and its grant_type unsupported_grant_type',
    rules: ['DEV-UNAVAILABLE-REFUSED'],
    async run(t: CheckContext) {
      // Two different reasons, said apart: a run whose device probe was refused must not read
      // "available" here while the other device checks say it is not.
      // Its endpoint absent at start-up is a third: DEV-AVAILABILITY's failure, not an offer (review 24).
      const absent = t.caps.absentAnswers?.deviceEndpoint;
      if (t.caps.device)
        t.skip(
          t.caps.deviceRefused
            ? `the device grant is declared available (features.${DEVICE_FLAG}); its refusal to the configured application (${t.caps.deviceRefused}) is judged by ${DEVICE_PREMISE.reporter}`
            : absent !== undefined
              ? `the device grant must be offered here (declared in features.${DEVICE_FLAG}, or its authorization answered at start-up), and an empty POST ${AUTHORIZE_DEVICE_PATH} answered ${absent} at start-up: ${DEVICE_PREMISE.reporter} judges that (${DEVICE_PREMISE.rule})`
              : 'the device grant is offered by this target (its probe was answered)',
        );
      if (t.inForce('DEV-AVAILABILITY'))
        t.skip(
          `at release ${t.release} with device_authorization_grant on the device grant must be offered (DEV-AVAILABILITY), so a refusal is not judged here`,
        );
      const app = t.config.applications?.public ?? t.config.applications?.confidential;
      const res = await t.http.post(AUTHORIZE_DEVICE_PATH, { form: { client_id: app?.clientId ?? 'none' } });
      t.expect(res.status === 404, `${AUTHORIZE_DEVICE_PATH} must answer 404 where the device grant is unavailable`, {
        status: res.status,
      });
      const grant = await t.http.post(TOKEN_PATH, {
        form: { grant_type: DEVICE_GRANT, device_code: 'none', client_id: app?.clientId },
      });
      expectOAuthError(
        t,
        grant,
        { status: 400, error: 'unsupported_grant_type' },
        'device grant where it is unavailable',
      );
    },
  },
];
