/**
 * POST /oauth/device (oauthDeviceDecision): the verification page's two steps. The entered code
 * (no `decision`) is only looked up: the answer is the confirmation naming the application, its
 * scopes and the code (RFC 8628 §3.3, §5.4). Its Authorize or Deny (`decision`) fires the machine.
 */
import type { Handler } from '../types.js';
import { FIELDS, messagePage } from '../pages/layout.js';
import { deviceConfirmation, deviceForm, devicePage } from '../pages/device.js';
import { applicationById } from './accounts.js';
import { deviceByUserCode, fireDevice, normalizeUserCode } from './device.js';
import { csrfValid, signedIn } from './session.js';
import { accountLocked, recordFailure, retryAfter, userCodeKey } from './throttle.js';

export const oauthDeviceDecision: Handler = async (ctx) => {
  const { sim } = ctx;
  const who = signedIn(sim, ctx.request);
  if (!who) return messagePage(401, 'Sign in required', 'Sign in first, then open the device page again.');
  const body = await ctx.body();
  const form = body.kind === 'form' ? body.form : new URLSearchParams();
  if (!csrfValid(who.csrf, form.get(FIELDS.csrf))) {
    return messagePage(
      422,
      'Device refused',
      'The form expired or the request was forged (invalid authenticity token).',
    );
  }
  const typed = form.get('user_code') ?? '';
  // AUTH-BRUTE-FORCE-THROTTLED: wrong codes are counted per signed-in account, in either step;
  // past the limit the page answers 429 until the window passes, right code or not.
  const key = userCodeKey(who.user);
  if (accountLocked(sim, key))
    return messagePage(429, 'Too many attempts', 'Too many wrong codes. Try again later.', {
      headers: { 'retry-after': String(retryAfter(sim, key)) },
    });
  const record = deviceByUserCode(sim, typed);
  const app = record && applicationById(sim, record.applicationId);
  if (!record || !app) {
    recordFailure(sim, key);
    return deviceForm(who.csrf, typed, who.user.username, 'That code is not valid. Check it on your device.', 404);
  }
  const decision = form.get(FIELDS.decision);
  if (decision !== 'approve' && decision !== 'deny') {
    const request = { app, scopes: record.scopes, userCode: normalizeUserCode(typed) };
    // The code alone decides nothing; a decision other than the two buttons' is asked again.
    return decision
      ? deviceConfirmation(who.csrf, request, who.user.username, 'Choose Authorize or Deny.', 400)
      : deviceConfirmation(who.csrf, request, who.user.username);
  }
  const row = await fireDevice({ sim, record, user: who.user }, decision);
  return devicePage(row);
};
