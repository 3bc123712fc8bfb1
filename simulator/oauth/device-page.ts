/** GET /oauth/device (oauthDevicePage): the verification page, user_code prefilled from the query. */
import { redirect } from '../http.js';
import type { Handler } from '../types.js';
import { deviceForm } from '../pages/device.js';
import { signedIn, signInLocation } from './session.js';

export const oauthDevicePage: Handler = (ctx) => {
  const who = signedIn(ctx.sim, ctx.request);
  if (!who) return redirect(signInLocation(ctx.url.pathname + ctx.url.search));
  return deviceForm(who.csrf, ctx.query.get('user_code') ?? '', who.user.username);
};
