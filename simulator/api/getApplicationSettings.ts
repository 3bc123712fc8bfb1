/** GET /api/v4/application/settings (administrators): the instance settings the simulator plays. */
import { apiError, json } from '../http.js';
import { API, endpoint } from './endpoint.js';

export const getApplicationSettings = endpoint(API, (ctx, caller) => {
  if (!caller?.user.admin) return apiError(403, '403 Forbidden');
  const s = ctx.sim.options.settings;
  return json(200, {
    password_authentication_enabled_for_git: s.gitPasswordAuth,
    max_url_length: s.maxUrlLength,
    // deprecated (the Appearance API's description replaces them) but still present
    sign_in_text: null,
    help_text: null,
  });
});
