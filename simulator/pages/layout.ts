/**
 * The HTML of every page: one layout, escaped values, anti-framing headers (consent and sign-in
 * must never render inside another site's frame), never cached.
 */
import escapeHtml from 'escape-html';
import { html, type Answer } from '../http.js';

export const esc = (value: string | number | boolean | null | undefined): string => escapeHtml(String(value ?? ''));

/** Field names of the pages' forms; the target config's driver section names them too. */
export const FIELDS = {
  csrf: 'authenticity_token',
  login: 'user[login]',
  password: 'user[password]',
  returnTo: 'redirect_to',
  decision: 'decision',
} as const;

export const SELECTORS = {
  approve: `button[name="${FIELDS.decision}"][value="approve"]`,
  deny: `button[name="${FIELDS.decision}"][value="deny"]`,
} as const;

export function hidden(name: string, value: string | null | undefined): string {
  return value == null ? '' : `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;
}

export function decisionButtons(approveLabel: string, denyLabel: string): string {
  return (
    `<button type="submit" name="${FIELDS.decision}" value="approve">${esc(approveLabel)}</button>\n` +
    `<button type="submit" name="${FIELDS.decision}" value="deny">${esc(denyLabel)}</button>`
  );
}

/**
 * The pages' policy: no script, no frame, forms post to us or to a web address. `also` adds the
 * scheme of a native application's redirect URI (RFC 8252 §7.1, `com.example.app:`): Chromium
 * checks form-action on every redirect after a form, so the consent form's answer, a redirect to
 * that URI with the code, is blocked without it.
 */
const pagePolicy = (also = '') =>
  `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:${also}; frame-ancestors 'none'`;

export const PAGE_HEADERS = {
  'x-frame-options': 'DENY',
  'content-security-policy': pagePolicy(),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface PageOptions {
  setCookie?: string;
  /** Machine-readable name of the page (`data-page`), e.g. the `page` a machine row names. */
  name?: string;
  /** More response headers (Retry-After of a throttled form). */
  headers?: Record<string, string>;
  /** Where the page's form sends the browser in the end (a redirect URI): its scheme joins form-action. */
  formLandsOn?: string;
}

/** ` scheme:` for a URI whose scheme is not the web's, else nothing (a parsed scheme: letters, digits, + - .). */
function otherScheme(uri: string | undefined): string {
  const scheme = uri && URL.canParse(uri) ? new URL(uri).protocol : 'https:';
  return scheme === 'https:' || scheme === 'http:' ? '' : ` ${scheme}`;
}

export function page(status: number, title: string, body: string, options: PageOptions = {}): Answer {
  const document = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body>
<main${options.name ? ` data-page="${esc(options.name)}"` : ''}>
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
  const headers: Record<string, string> = { ...PAGE_HEADERS };
  const also = otherScheme(options.formLandsOn);
  if (also) headers['content-security-policy'] = pagePolicy(also);
  if (options.setCookie) headers['set-cookie'] = options.setCookie;
  Object.assign(headers, options.headers);
  return html(status, document, headers);
}

/** A page that only says something (errors, device results). */
export function messagePage(status: number, title: string, message: string, options: PageOptions = {}): Answer {
  return page(status, title, `<p id="message">${esc(message)}</p>`, options);
}
