/**
 * Response builders. JSON goes out as `application/json` with no charset parameter, as the real
 * service sends it (some clients accept nothing else).
 */
export type HeaderInit = Record<string, string>;

export function json(status: number, body: unknown, headers: HeaderInit = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function html(status: number, body: string, headers: HeaderInit = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
}

export function text(status: number, body: string, headers: HeaderInit = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
}

export function redirect(location: string, status = 302, headers: HeaderInit = {}): Response {
  return new Response(null, { status, headers: { location, ...headers } });
}

/** The REST API's plain error shape: `{ "message": ... }` (404, 400, 405, 410, 414). */
export function apiError(status: number, message: string, headers: HeaderInit = {}): Response {
  return json(status, { message }, headers);
}
