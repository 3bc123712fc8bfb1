/** Small helpers over SimRequest (types.ts): one URL parse per request, and a request re-addressed. */
import type { SimRequest } from './types.js';

const parsed = new WeakMap<SimRequest, URL>();

/** The request's URL, parsed once however many middlewares ask. Callers must not modify it. */
export function requestUrl(request: SimRequest): URL {
  if (request.parsedUrl) return request.parsedUrl;
  let url = parsed.get(request);
  if (!url) parsed.set(request, (url = new URL(request.url)));
  return url;
}

/** The same request sent to another URL (same method, headers and body). */
export function withUrl(request: SimRequest, url: string): SimRequest {
  return {
    method: request.method,
    url,
    headers: request.headers,
    text: () => request.text(),
    arrayBuffer: () => request.arrayBuffer(),
    formData: () => request.formData(),
  };
}

/** The media type of the body, lowercased without parameters; '' when no Content-Type is sent. */
export function mediaType(request: SimRequest): string {
  const sent = request.headers.get('content-type');
  // The form type as clients send it, read without splitting (every OAuth POST asks).
  if (sent === FORM || sent === null) return sent ?? '';
  return sent.split(';')[0].trim().toLowerCase();
}
const FORM = 'application/x-www-form-urlencoded';

export function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}
