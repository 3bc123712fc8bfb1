/** POST /oauth/device (oauthDeviceDecision): the signed-in user approves or denies a user code. */
import type { Handler } from '../types.js';
import { FIELDS, messagePage } from '../pages/layout.js';
import { deviceForm, devicePage } from '../pages/device.js';
import { deviceByUserCode, fireDevice } from './device.js';
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
  const decision = form.get(FIELDS.decision);
  if (decision !== 'approve' && decision !== 'deny')
    return deviceForm(who.csrf, typed, who.user.username, 'Choose Authorize or Deny.', 400);
  // AUTH-BRUTE-FORCE-THROTTLED: wrong codes are counted per signed-in account; past the limit
  // the page answers 429 until the window passes, right code or not.
  const key = userCodeKey(who.user);
  if (accountLocked(sim, key))
    return messagePage(429, 'Too many attempts', 'Too many wrong codes. Try again later.', {
      headers: { 'retry-after': String(retryAfter(sim, key)) },
    });
  const record = deviceByUserCode(sim, typed);
  if (!record) recordFailure(sim, key);
  if (!record)
    return deviceForm(who.csrf, typed, who.user.username, 'That code is not valid. Check it on your device.', 404);
  const row = await fireDevice({ sim, record, user: who.user }, decision);
  return devicePage(row);
};
