/** 414 for a request target (path + query) longer than the instance's maxUrlLength setting. */
import { errorFor } from '../error-shape.js';
import type { Middleware } from '../types.js';
import { requestUrl } from '../request.js';

// Not async: a pass-through returns next()'s own result (an async wrapper costs ticks per request).
export const urlLength: Middleware = (request, sim, next) => {
  const url = requestUrl(request);
  const length = Buffer.byteLength(url.pathname + url.search);
  if (length > sim.options.settings.maxUrlLength && !sim.fault('no-414')) {
    return errorFor(
      url.pathname,
      414,
      `414 Request-URI Too Large: the URL has ${length} bytes, the limit is ${sim.options.settings.maxUrlLength}; send the parameters in a request body instead`,
    ).toResponse(sim);
  }
  return next();
};
