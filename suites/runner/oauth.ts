/**
 * OAuthFlows: the flows a check needs, run through the target's real endpoints and the driver.
 * Every token the target hands out through here is tracked and revoked when the check ends.
 */
import { createHash } from 'node:crypto';
import { limits, type RuleId } from '../../spec/index.js';
import type {
  AppConfig,
  AppRole,
  Capabilities,
  ClientAuthMethod,
  ClientCredentials,
  Driver,
  Http,
  HttpResponse,
  OAuthFlows,
  TargetConfig,
  TokenResponse,
} from '../types.js';
import { AUTHORIZE_PATH, exchangeRefusalRules, REVOKE_PATH, TOKEN_PATH } from '../shared/oauth.js';
import { CheckFailure, CheckSkipped, HarnessError } from './errors.js';
import { VERIFIER_ALPHABET, type Random } from './random.js';
import { randomState } from './state.js';
import type { Redactor } from './redact.js';
import type { RawRequest } from '../target/types.js';

export { VERIFIER_ALPHABET };
/** A nonce as clients send one with every `openid` request (some providers refuse any without). */
const NONCE_LENGTH = 32;

/**
 * URL-safe base64 without padding of SHA-256 over the verifier's UTF-8 bytes. Computed for any
 * string on purpose (the grants checks hash verifiers the source forbids): a provider that skips
 * the syntax check then sees a matching challenge and must still refuse.
 */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export interface TrackedFlows extends OAuthFlows {
  /** Track the tokens of a token response however it was requested (see the session's observer). */
  adopt(response: HttpResponse, role?: AppRole): void;
  /** The application a token request authenticated as (client_id in the body or HTTP Basic). */
  roleOf(request: RawRequest): AppRole | undefined;
  /**
   * Revokes each token the flows were handed, in the order they came (the runner calls this after
   * each check); none is begun at or after `until` (a time, or a function asked before each: a
   * signal may bring it closer).
   */
  revokeAll(until?: number | (() => number)): Promise<void>;
  /** Tokens still held: not yet revoked nor tried (revokeAll stopped at its `until`, or is under way). */
  unrevoked(): number;
}

/**
 * Where a client's credentials go (RFC 6749 §2.3.1): in the form body (client_secret_post), by HTTP
 * Basic (client_secret_basic) or not at all. A public client in the body sends its client_id alone
 * (§3.2.1): an undefined field is left out of the form.
 */
export function clientCredentials(
  client: Pick<AppConfig, 'clientId' | 'clientSecret'>,
  auth: ClientAuthMethod,
): ClientCredentials {
  if (auth === 'none') return { fields: {} };
  if (auth === 'basic')
    return { fields: {}, clientBasic: { user: client.clientId, password: client.clientSecret ?? '' } };
  return { fields: { client_id: client.clientId, client_secret: client.clientSecret } };
}

/**
 * How the start-up found the provider takes client secrets (Capabilities): an application whose
 * secret in the body is refused authenticates by HTTP Basic, and the password grant authenticates
 * no client where HTTP Basic is refused. A check that asks for a way (`auth`) gets that way.
 */
export type ClientAuthFound = Pick<Capabilities, 'clientBasicRefused' | 'clientBodyRefused'>;

export function createOAuthFlows(
  http: Http,
  driver: Driver,
  config: TargetConfig,
  redactor: Redactor,
  random: Random,
  found: ClientAuthFound = {},
): TrackedFlows {
  const tracked = new Map<string, AppRole | undefined>();

  const app = (role: AppRole): AppConfig => {
    const found = config.applications?.[role];
    if (!found) throw new CheckSkipped(`the target config has no ${role} application`);
    return found;
  };

  const track = (token: string | undefined, role?: AppRole) => {
    if (!token) return;
    redactor.remember(token);
    tracked.set(token, role);
  };

  /**
   * A token response minted through us: remember its secrets for redaction and revocation. A
   * form-encoded one (GitHub's answer to a request without Accept JSON) holds live tokens too.
   */
  const adopt = (response: HttpResponse, role?: AppRole) => {
    if (response.status !== 200) return;
    const form = /^application\/x-www-form-urlencoded\b/i.test(response.headers.get('content-type') ?? '');
    try {
      const body = form
        ? Object.fromEntries(new URLSearchParams(response.text))
        : (JSON.parse(response.text) as Record<string, unknown>);
      for (const key of ['access_token', 'refresh_token']) if (typeof body[key] === 'string') track(body[key], role);
      // Stryker disable next-line ConditionalExpression: remember() ignores what is not a string
      if (typeof body.id_token === 'string') redactor.remember(body.id_token);
    } catch {
      /* not a token response */
    }
  };

  const pkce = (verifier?: string) => {
    const v = verifier ?? random.string(limits().verifierMaxLength, VERIFIER_ALPHABET);
    return { verifier: v, challenge: s256(v) };
  };

  const authorizeUrl = (role: AppRole, params: Record<string, string | undefined> = {}) => {
    const a = app(role);
    const query = new URLSearchParams();
    const merged: Record<string, string | undefined> = {
      client_id: a.clientId,
      redirect_uri: a.redirectUri,
      response_type: 'code',
      scope: a.scopes.join(' '),
      ...params,
    };
    // The client sends a state with each authorization request (L17); a provider that requires it
    // (Okta) must not refuse every flow of the run for it: only a check that removes it asks without.
    if (!('state' in params)) merged.state = randomState(random);
    // OIDC Core makes nonce optional in the code flow, but clients send one and some providers
    // require it: every openid request carries one unless the check chose (or removed) it.
    if (!('nonce' in params) && merged.scope?.split(' ').includes('openid'))
      merged.nonce = random.string(NONCE_LENGTH, VERIFIER_ALPHABET);
    for (const [k, v] of Object.entries(merged)) if (v !== undefined) query.append(k, v);
    return http.urlOf(`${AUTHORIZE_PATH}?${query}`);
  };

  /**
   * The one way a request of the application `role` carries its client credentials: as `auth`
   * says, else as the start-up found the provider takes them (HTTP Basic where the body was
   * refused, the body otherwise). `secret` stands in for the configured one (null: none sent).
   */
  const clientAuth: OAuthFlows['clientAuth'] = (role, options = {}) => {
    const auth = options.auth ?? (found.clientBodyRefused?.[role] !== undefined ? 'basic' : 'body');
    if (auth === 'none') return { fields: {} };
    const a = app(role);
    // Remembered even when the check's form leaves the secret out: it must never show anywhere.
    redactor.remember(a.clientSecret);
    const secret = options.secret === null ? undefined : (options.secret ?? a.clientSecret);
    redactor.remember(secret);
    return clientCredentials({ clientId: a.clientId, clientSecret: secret }, auth);
  };

  const clientRequest: OAuthFlows['clientRequest'] = (path, form, options = {}) => {
    const { fields, clientBasic } = clientAuth(options.app ?? 'confidential', options);
    // The check's own fields win; an explicit undefined removes a field.
    return http.post(path, { form: { ...fields, ...form }, clientBasic, headers: options.headers });
  };

  const tokenRequest: OAuthFlows['tokenRequest'] = async (form, options = {}) => {
    const response = await clientRequest(TOKEN_PATH, form, options);
    adopt(response, options.app ?? 'confidential');
    return response;
  };

  const code: OAuthFlows['code'] = async (role, options = {}) => {
    const a = app(role);
    const usePkce = options.pkce ?? (options.verifier !== undefined || !a.clientSecret);
    const pair = usePkce ? pkce(options.verifier) : undefined;
    const state = options.state ?? randomState(random);
    const url = authorizeUrl(role, {
      state,
      scope: options.scope ?? a.scopes.join(' '),
      ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
      code_challenge: pair?.challenge,
      code_challenge_method: pair ? 'S256' : undefined,
    });
    const { redirect, response, decided } = await driver.authorize(url, 'approve');
    // The driver could not play the page: the harness's trouble, not the provider's failure.
    if (!redirect && decided === false)
      throw new HarnessError(`the driver found no approve control on the provider's page (status ${response.status})`);
    // The code is this check's premise: a refusal is blamed on the rule it breaks, once, and the
    // rules the check was to prove stay untested (DESIGN.md, one cause, one blame).
    if (!redirect)
      throw new CheckFailure(
        `the authorization request ended on a page (status ${response.status}) instead of redirecting to the application; this check's own rules are untested`,
        { rules: ['GRANT-REDIRECT-WITH-CODE'] },
      );
    const error = redirect.searchParams.get('error');
    const got = redirect.searchParams.get('code');
    if (error)
      throw new CheckFailure(
        `the provider refused an approved authorization request of the documented parameters (${error}); this check's own rules are untested`,
        {
          error,
          error_description: redirect.searchParams.get('error_description') ?? undefined,
          rules: ['GRANT-AUTHORIZE-PARAMS'],
        },
      );
    if (!got)
      throw new CheckFailure("the redirect after approval carries no code; this check's own rules are untested", {
        rules: ['GRANT-REDIRECT-WITH-CODE'],
      });
    redactor.remember(got);
    return {
      code: got,
      state: redirect.searchParams.get('state'),
      verifier: pair?.verifier,
      redirectUri: a.redirectUri,
    };
  };

  const token: OAuthFlows['token'] = async (role, options = {}) => {
    const grant = await code(role, options);
    const response = await tokenRequest(
      {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: grant.redirectUri,
        code_verifier: grant.verifier,
      },
      { app: role },
    );
    // The exchange of a fresh code is the flow itself: its failure breaks that flow's rule only.
    const flow: RuleId[] = [grant.verifier === undefined ? 'GRANT-CODE-FLOW' : 'GRANT-PKCE-FLOW'];
    if (response.status !== 200) {
      throw new CheckFailure(
        `exchanging an authorization code for tokens failed with status ${response.status}; this check's own rules are untested`,
        {
          body: response.text.slice(0, 300),
          rules: exchangeRefusalRules(response, !!app(role).clientSecret, flow),
        },
      );
    }
    // JSON that is no object (null, a list) has no access_token either: the target's answer, not our crash.
    const body = response.json<TokenResponse | null>();
    if (typeof body?.access_token !== 'string')
      throw new CheckFailure('the token response has no access_token', { rules: ['TOK-ACCESS-TOKEN', ...flow] });
    return body;
  };

  const password: OAuthFlows['password'] = async (options = {}) => {
    if (!config.user) throw new CheckSkipped('the target config names no user for the password grant');
    redactor.remember(config.user.password);
    const basic = !!config.applications?.confidential && found.clientBasicRefused === undefined;
    return tokenRequest(
      { grant_type: 'password', username: config.user.username, password: config.user.password, scope: options.scope },
      { app: 'confidential', auth: options.auth ?? (basic ? 'basic' : 'none') },
    );
  };

  const revoke: OAuthFlows['revoke'] = async (value, role = 'confidential') => {
    // Without that application in the config the token goes alone (the cleanup's best effort).
    const { fields, clientBasic } = clientAuth(role, { auth: config.applications?.[role] ? undefined : 'none' });
    const response = await http.post(REVOKE_PATH, { form: { token: value, ...fields }, clientBasic });
    if (response.status === 200) tracked.delete(value);
    return response;
  };

  const roleOf = (request: RawRequest): AppRole | undefined => {
    let clientId: string | null | undefined;
    const authorization = request.headers.get('authorization');
    // Stryker disable next-line StringLiteral: any text without "Basic " at its start matches nothing
    const basic = /^Basic\s+(\S+)/i.exec(authorization ?? '');
    if (basic) clientId = Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0];
    else if (request.headers.get('content-type')?.includes('json')) {
      try {
        clientId = (JSON.parse(request.body ?? '') as { client_id?: string }).client_id;
      } catch {
        /* not JSON: it names no client */
      }
    } else clientId = new URLSearchParams(request.body).get('client_id');
    const found = Object.entries(config.applications ?? {}).find(([, a]) => a?.clientId === clientId);
    return found?.[0] as AppRole | undefined;
  };

  return {
    app,
    adopt,
    roleOf,
    pkce,
    authorizeUrl,
    code,
    clientAuth,
    clientRequest,
    tokenRequest,
    token,
    password,
    track,
    conceal: (secret) => redactor.remember(secret),
    revoke,
    async revokeAll(until: number | (() => number) = Infinity) {
      const end = typeof until === 'number' ? () => until : until;
      for (const [value, role] of [...tracked]) {
        if (Date.now() >= end()) return;
        try {
          await revoke(value, role);
        } catch {
          /* best effort: an unreachable target cannot be cleaned */
        }
        tracked.delete(value);
      }
    },
    unrevoked: () => tracked.size,
  };
}
