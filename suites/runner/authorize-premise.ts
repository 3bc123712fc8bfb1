/**
 * Is each configured application's authorization request taken at all? Asked once at start-up,
 * signed out, as a check would send it (state, PKCE, a nonce with openid). A provider that takes it
 * sends the user on to sign in (a redirect, or its sign-in page); a 4xx page instead, before any
 * sign-in, refuses the application itself: a redirectUri not registered for the client (exactly),
 * a clientId that is no client, scopes it may not ask. That is the config's premise, not a rule the
 * provider broke, so the session says it once and skips what needs that authorization
 * (runner/session.ts), instead of 14 errored checks and the refusal's page warning `should` rules
 * that expected a redirect to the application.
 */
import { createHash } from 'node:crypto';
import { APP_ROLES, type AppRole } from '../../spec/target-config.js';
import { pageText } from '../drivers/html.js';
import { AUTHORIZE_PATH } from '../shared/oauth.js';
import type { Http, TargetConfig } from '../types.js';

/** A verifier of 43 characters: what is asked is whether the request is taken, not PKCE. */
const VERIFIER = 'idp-conformance-start-up-premise-verifier-0';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

/** Characters of the refusal page's words quoted: enough for "The redirect URI … is not valid". */
const QUOTED = 160;

/** The words of a refusal page (its text, or a JSON error's description), on one line, cut. */
export function refusalWords(body: string): string {
  let text = body.slice(0, 8192);
  try {
    const json = JSON.parse(text) as Record<string, unknown> | null;
    const said = json?.error_description ?? json?.message ?? json?.error;
    if (typeof said === 'string') text = said;
  } catch {
    // The body's words: the title would only repeat the heading.
    const head = text.toLowerCase().indexOf('</head>');
    text = pageText(head < 0 ? text : text.slice(head));
  }
  const words = text.replace(/\s+/g, ' ').trim();
  return words.length > QUOTED ? `${words.slice(0, QUOTED)}…` : words;
}

/** Each configured application whose authorization request the provider refuses, with what it answered. */
export async function refusedAuthorizations(
  http: Http,
  config: TargetConfig,
): Promise<Partial<Record<AppRole, string>>> {
  const refused: Partial<Record<AppRole, string>> = {};
  for (const role of APP_ROLES) {
    const app = config.applications?.[role];
    if (!app) continue;
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      response_type: 'code',
      scope: app.scopes.join(' '),
      state: 'start-up-premise',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ...(app.scopes.includes('openid') ? { nonce: 'start-up-premise' } : {}),
    });
    let status: number;
    let body: string;
    try {
      const response = await http.get(`${AUTHORIZE_PATH}?${query}`);
      status = response.status;
      body = response.text;
    } catch {
      continue; // no answer tells nothing: the checks meet it and say so
    }
    if (status < 400 || status >= 500 || status === 429) continue;
    const words = refusalWords(body);
    refused[role] =
      `GET ${AUTHORIZE_PATH} with its clientId and redirectUri answered ${status} before any sign-in${words ? `: “${words}”` : ''}`;
  }
  return refused;
}
