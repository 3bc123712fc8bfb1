/**
 * Are the configured applications what the provider knows? Asked once at start-up, before any
 * check. Its client credentials: a code exchange with a code never issued, which a provider that
 * knows the client refuses with invalid_grant, and one that does not with invalid_client (RFC 6749
 * §5.2: client authentication failed) in the body and in HTTP Basic, the config's clientId or clientSecret wrong (before, 18
 * checks of grants and tokens failed AUTH-CLIENT-BODY, GRANT-CODE-FLOW and more on it, exit 1).
 * Its authorization request: asked once at start-up,
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
import { quotableError, TOKEN_PATH } from '../shared/oauth.js';
import { shownUrl } from './endpoints.js';
import { namedState } from './state.js';
import type { AppConfig, Http, OAuthFlows, TargetConfig } from '../types.js';

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
  authorizeUrl: OAuthFlows['authorizeUrl'],
): Promise<Partial<Record<AppRole, string>>> {
  const refused: Partial<Record<AppRole, string>> = {};
  for (const role of APP_ROLES) {
    const app = config.applications?.[role];
    if (!app) continue;
    // The request a check sends (runner/oauth.ts), its random parts fixed: no draw of the run's seed.
    const url = authorizeUrl(role, {
      state: namedState('start-up-premise'),
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ...(app.scopes?.includes('openid') ? { nonce: 'start-up-premise' } : {}),
    });
    let status: number;
    let body: string;
    try {
      const response = await http.follow(url);
      status = response.status;
      body = response.text;
    } catch {
      continue; // no answer tells nothing: the checks meet it and say so
    }
    // A 404 or 405 is no endpoint there, which the start-up's core probes report; a 429, a limit.
    if (status < 400 || status >= 500 || [404, 405, 429].includes(status)) continue;
    const words = refusalWords(body);
    refused[role] =
      `GET ${shownUrl(http.baseUrl, url)} with its clientId and redirectUri answered ${status} before any sign-in${words ? `: “${words}”` : ''}`;
  }
  return refused;
}

/**
 * The token endpoint's refusal of a code exchange of `app` with a code never issued (HTTP Basic,
 * or in the body): its JSON error code, and what it said.
 */
async function codeRefusal(
  http: Http,
  app: AppConfig,
  basic: boolean,
): Promise<{ error: unknown; said: string } | undefined> {
  const form = {
    grant_type: 'authorization_code',
    code: 'idp-conformance-start-up-premise',
    redirect_uri: app.redirectUri,
    ...(basic ? {} : { client_id: app.clientId, client_secret: app.clientSecret }),
  };
  try {
    const response = await http.post(TOKEN_PATH, {
      form,
      headers: { accept: 'application/json' },
      ...(basic ? { clientBasic: { user: app.clientId, password: app.clientSecret ?? '' } } : {}),
    });
    const body = JSON.parse(response.text) as Record<string, unknown> | null;
    const words = typeof body?.error_description === 'string' ? refusalWords(body.error_description) : '';
    const error = body?.error;
    const quoted = quotableError(error);
    const code = quoted ? ` ${quoted}` : '';
    return {
      error,
      said: `POST ${shownUrl(http.baseUrl, http.urlOf(TOKEN_PATH))} answered ${response.status}${code}${words ? `: “${words}”` : ''}`,
    };
  } catch {
    return undefined; // no answer, or not JSON: nothing said of the client
  }
}

/** The token endpoint's invalid_client to a code exchange of `app`: what it said. */
async function invalidClient(http: Http, app: AppConfig, basic: boolean): Promise<string | undefined> {
  const refusal = await codeRefusal(http, app, basic);
  return refusal?.error === 'invalid_client' ? refusal.said : undefined;
}

/** Secret-based client authentication (RFC 8414 §2: token_endpoint_auth_methods_supported). */
const SECRET_METHODS = ['client_secret_post', 'client_secret_basic'];

/** What the start-up's client credential probes found, per role: what the token endpoint answered. */
export interface ClientRefusals {
  /** Refused in the body and in HTTP Basic both: the config's credentials, not the provider. */
  refused: Partial<Record<AppRole, string>>;
  /** Refused in the body, taken by HTTP Basic (Okta's client_secret_basic clients). */
  bodyOnly: Partial<Record<AppRole, string>>;
}

/**
 * Each configured application with a secret whose client credentials the token endpoint refuses,
 * in the body and in HTTP Basic both. A provider that takes only HTTP Basic is no mistake of the
 * config: it is judged on AUTH-CLIENT-BODY once, and the harness authenticates the application by
 * Basic everywhere else (`bodyOnly`). Nor is a refusal by a provider whose discovery names no
 * secret-based method (clients of private_key_jwt or tls_client_auth only): the checks blame
 * AUTH-CLIENT-BODY for it, once.
 */
export async function refusedClients(
  http: Http,
  config: TargetConfig,
  discovery?: Record<string, unknown>,
): Promise<ClientRefusals> {
  const found: ClientRefusals = { refused: {}, bodyOnly: {} };
  const methods = discovery?.token_endpoint_auth_methods_supported;
  if (Array.isArray(methods) && !methods.some((m) => SECRET_METHODS.includes(m as string))) return found;
  for (const role of APP_ROLES) {
    const app = config.applications?.[role];
    if (!app?.clientSecret) continue;
    const inBody = await invalidClient(http, app, false);
    if (!inBody) continue;
    // Taken by Basic: the never-issued code refused as a grant (invalid_grant), past the client.
    const basic = await codeRefusal(http, app, true);
    if (basic?.error === 'invalid_client') found.refused[role] = inBody;
    else if (basic?.error === 'invalid_grant') found.bodyOnly[role] = inBody;
  }
  return found;
}

/** A request as the session's gate sees it (the driver's page loads have no body). */
interface Sent {
  url: string;
  headers?: Headers;
  body?: string;
}

/** The client a request authenticates as: its body's client_id beside a client_secret, or its Basic user. */
function authenticatesAs(sent: Sent): string | undefined {
  const basic = /^Basic\s+(\S+)$/i.exec(sent.headers?.get('authorization') ?? '')?.[1];
  if (basic) return decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0]);
  if (!sent.body) return undefined;
  let fields: Record<string, unknown>;
  try {
    fields = sent.body.trimStart().startsWith('{')
      ? (JSON.parse(sent.body) as Record<string, unknown>)
      : Object.fromEntries(new URLSearchParams(sent.body));
  } catch {
    return undefined;
  }
  return typeof fields.client_id === 'string' && 'client_secret' in fields ? fields.client_id : undefined;
}

/** The applications the start-up found refused, per role: what the provider answered. */
export interface RefusedApps {
  /** Its authorization request, before any sign-in (refusedAuthorizations). */
  authorize?: Partial<Record<AppRole, string>>;
  /** Its client credentials (refusedClients). */
  client?: Partial<Record<AppRole, string>>;
}

/** What the first check that meets a refused application says, what later ones are skipped with. */
export interface Refusal {
  key: string;
  first: string;
  later: (saidBy: string) => string;
}

/**
 * The refusal a request of a check runs into: an authorization request (`atAuthorize`) of an
 * application refused at start-up, at its configured redirect URI (or none); or any request that
 * authenticates as a client whose credentials were refused.
 */
export function refusalOf(
  sent: Sent,
  config: TargetConfig,
  refused: RefusedApps,
  atAuthorize: boolean,
): Refusal | undefined {
  const apps = APP_ROLES.flatMap((role) => {
    const app = config.applications?.[role];
    return app ? [{ role, app }] : [];
  });
  if (atAuthorize && URL.canParse(sent.url)) {
    const query = new URL(sent.url).searchParams;
    const hit = apps.find(
      ({ role, app }) =>
        refused.authorize?.[role] !== undefined &&
        app.clientId === query.get('client_id') &&
        (query.get('redirect_uri') ?? app.redirectUri) === app.redirectUri,
    );
    if (hit)
      return {
        key: `authorize ${hit.role}`,
        first: `the provider refuses the authorization request of applications.${hit.role} itself (${refused.authorize![hit.role]}): check in the target config that its redirectUri is registered for that client exactly (scheme, host, port and path), and its clientId and scopes; what needs its authorization is not tested`,
        later: (by) =>
          `the provider refused the authorization request of applications.${hit.role} at start-up (${by} says why); what needs it is not tested`,
      };
  }
  const client = authenticatesAs(sent);
  const hit =
    client === undefined
      ? undefined
      : apps.find(({ role, app }) => refused.client?.[role] !== undefined && app.clientId === client);
  if (!hit) return undefined;
  return {
    key: `client ${hit.role}`,
    first: `the provider refuses the client credentials of applications.${hit.role} (${refused.client![hit.role]}): check its clientId and clientSecret in the target config; what needs them is not tested`,
    later: (by) =>
      `the provider refused the client credentials of applications.${hit.role} at start-up (${by} says why); what needs them is not tested`,
  };
}
