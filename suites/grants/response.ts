/** Token endpoint wire format: exact fields per grant, headers, unsupported grant types, missing parameters, JSON bodies. */
import fc from 'fast-check';
import type { RuleId } from '../../spec/index.js';
import type { Check, CheckContext, HttpResponse } from '../types.js';
import {
  authorizeCode,
  broke,
  exchangeFresh,
  exchangeRefusalRules,
  expectExactJsonType,
  expectExchangeOk,
  expectJsonType,
  expectJsonUnasked,
  expectNoStore,
  expectOAuthError,
  expectTokenOk,
  isErrorAnswer,
  jsonObject,
  refresh,
  refreshRefusalRules,
  STANDARD_ERRORS,
  TOKEN_PATH,
  trackBody,
} from '../shared/oauth.js';
import { expectServed } from '../shared/served.js';
import { expectTokenFields } from './token-fields.js';
import { word } from './variants.js';

export { STANDARD_ERRORS };

/** What a wrong refusal of a request missing a parameter breaks. */
const MISSING: { rules: RuleId[]; codeRules: RuleId[] } = {
  rules: ['GRANT-MISSING-PARAMETER'],
  codeRules: ['ERR-TOKEN-STANDARD-CODES'],
};

export const responseChecks: Check[] = [
  {
    id: 'grants.token-response-fields',
    suite: 'grants',
    title: 'Code (with and without PKCE) and refresh responses have exactly their fields, types, bearer and expires_in',
    rules: [
      'GRANT-FLOWS-SUPPORTED',
      'GRANT-CODE-FLOW',
      'GRANT-CODE-PARAMS',
      'GRANT-FORM-PARAMETERS',
      'AUTH-CLIENT-BODY',
      'TOK-RESPONSE-JSON',
      'TOK-ACCESS-TOKEN',
      'TOK-TYPE-LOWERCASE-BEARER',
      'TOK-TYPE-BEARER',
      'TOK-EXPIRES-IN',
      'TOK-REFRESH-TOKEN-PRESENT',
      'TOK-CREATED-AT',
      'TOK-CODE-RESPONSE-FIELDS',
      'TOK-REFRESH-RESPONSE-FIELDS',
      'ENC-RESPONSE-JSON',
    ],
    async run(t: CheckContext) {
      // Each configured application is held to the rules; with none there is nothing to see.
      const apps = (['confidential', 'public'] as const).filter((app) => t.config.applications?.[app]);
      if (!apps.length) t.skip('the target config names no confidential or public application');
      const minted = [];
      for (const app of apps) {
        // The start-up found this application's secret refused in the body and taken by HTTP Basic:
        // the body's sentence is judged here, once, and the flow below authenticates as the
        // provider allows, so its own rules are still tested (review 28).
        const bodyRefused = t.caps.clientBodyRefused?.[app];
        if (bodyRefused) {
          const { res } = await exchangeFresh(t, app, {}, [], undefined, 'body');
          const body = jsonObject(res);
          t.soft(
            res.status === 200 && typeof body?.access_token === 'string',
            `code exchange (${app} application) with client_id and client_secret in the form body: refused (at start-up too: ${bodyRefused}), while the same credentials by HTTP Basic are taken`,
            broke(['AUTH-CLIENT-BODY'], { status: res.status, error: body?.error ?? null }),
          );
        }
        // A refused grant breaks the support of the flow and its form-encoded parameters.
        const { res, verifier, flow } = await exchangeFresh(t, app, {}, [
          'GRANT-FLOWS-SUPPORTED',
          'GRANT-FORM-PARAMETERS',
        ]);
        // The one check that reports an absent token endpoint: GRANT-CODE-PARAMS alone, not the
        // flow, the client's authentication or the form parameters it never judged.
        expectServed(t, res, 'tokenEndpoint');
        const tokens = expectExchangeOk(t, res, app, `code exchange (${app} application)`, flow);
        expectTokenFields(t, tokens, 'authorization_code', `code exchange (${app} application)`);
        minted.push({ app, tokens, verifier, res });
      }
      // Once more as a client that sends no Accept: the token response is JSON all the same. Before
      // the refreshes, whose refusal (another sentence) would stop the check before this one is judged.
      const { res: unasked } = await exchangeFresh(t, apps[0], {}, [], { accept: undefined });
      expectJsonUnasked(t, unasked, minted[0].res, `code exchange (${apps[0]} application)`, [
        'TOK-RESPONSE-JSON',
        'ENC-RESPONSE-JSON',
      ]);
      for (const { app, tokens, verifier } of minted) {
        // Without a refresh token (TOK-REFRESH-TOKEN-PRESENT, judged above) there is no refresh to judge.
        if (typeof tokens.refresh_token !== 'string') continue;
        const res = await refresh(t, app, tokens.refresh_token, verifier);
        expectJsonType(t, res, `refresh (${app} application)`);
        // A refusal is blamed as grants.refresh-rotation blames it: one cause, one blame.
        const refreshed = expectTokenOk(t, res, `refresh (${app} application)`, refreshRefusalRules(t, app));
        expectTokenFields(t, refreshed, 'refresh_token', `refresh (${app} application)`);
      }
    },
  },
  {
    id: 'grants.token-response-headers',
    suite: 'grants',
    title:
      'Token responses and token errors carry Cache-Control no-store and Content-Type application/json without charset',
    rules: ['TOK-NO-STORE', 'TOK-ERROR-NO-STORE', 'ENC-JSON-CONTENT-TYPE'],
    async run(t: CheckContext) {
      const app = t.oauth.app('confidential');
      const code = await authorizeCode(t, 'confidential', {});
      const ok = await t.oauth.tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri },
        { app: 'confidential' },
      );
      // Refused invalid_client, the client's authentication is to blame, not the flow (exchangeRefusalRules).
      expectTokenOk(t, ok, 'code exchange', exchangeRefusalRules(ok, !!app.clientSecret, ['GRANT-CODE-FLOW']));
      const refused = await t.oauth.tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri },
        { app: 'confidential' },
      );
      // The reused code is only the way to an error response: answered with tokens, it produced none
      // to judge, and its headers are a token response's, judged above (grants.code-reuse blames the reuse).
      const answers: [HttpResponse, string][] = [[ok, 'token response']];
      if (isErrorAnswer(refused)) answers.push([refused, 'token error response']);
      else
        t.note(
          `the code exchanged a second time was not refused (status ${refused.status}, no OAuth error): no token error response was produced, so TOK-ERROR-NO-STORE is not judged here`,
        );
      for (const [res, what] of answers) {
        expectNoStore(t, res, what);
        expectExactJsonType(t, res, what);
      }
    },
  },
  {
    id: 'grants.token-error-body',
    suite: 'grants',
    title: 'Every refused token request answers 4xx with an OAuth error body carrying a standard error code',
    rules: ['ERR-OAUTH-BODY', 'TOK-ERROR-BODY', 'ERR-TOKEN-STANDARD-CODES', 'ERR-DESCRIPTION-CHARSET'],
    async run(t: CheckContext) {
      const app = t.oauth.app('confidential');
      const junk = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
      const broken = fc.oneof(
        junk.map((code) => ({ grant_type: 'authorization_code', code, redirect_uri: app.redirectUri })),
        junk.map((refresh_token) => ({ grant_type: 'refresh_token', refresh_token, redirect_uri: app.redirectUri })),
        junk.map((grant_type) => ({ grant_type })),
        fc.constant({ grant_type: undefined }),
      );
      await t.property(broken, async (form: Record<string, string | undefined>) => {
        const res = await t.oauth.tokenRequest(form, { app: 'confidential' });
        // A junk grant_type that happens to be supported; a 200 with an error body is a refusal.
        if (res.status === 200 && typeof jsonObject(res)?.access_token === 'string') return;
        expectOAuthError(
          t,
          res,
          // A token or a status but 4xx is no error answer; a code outside the list breaks only the standard codes.
          {
            status: [400, 401],
            error: STANDARD_ERRORS,
            rules: ['TOK-ERROR-BODY'],
            errorRules: [],
            codeRules: ['ERR-TOKEN-STANDARD-CODES'],
          },
          `refused token request (grant_type ${form.grant_type === undefined ? 'missing' : 'as generated'})`,
        );
      });
    },
  },
  {
    id: 'grants.unsupported-grant-type',
    suite: 'grants',
    title: 'A grant_type the provider does not support is refused with unsupported_grant_type',
    rules: ['GRANT-UNSUPPORTED-GRANT-TYPE', 'ERR-TOKEN-STANDARD-CODES', 'ERR-NO-SERVER-ERROR'],
    async run(t: CheckContext) {
      // Never a standard grant (client_credentials, jwt-bearer…): a provider may support those. A
      // name under urn:example: (RFC 6963) is registered nowhere, so no provider can support it.
      const grantType = fc.oneof(
        word.map((w) => `urn:example:unregistered:${w}`),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((g) => `x-unregistered-${g}`),
      );
      await t.property(grantType, async (grant) => {
        const res = await t.oauth.tokenRequest(
          { grant_type: grant, code: 'not-a-code', redirect_uri: t.oauth.app('confidential').redirectUri },
          { app: 'confidential' },
        );
        expectOAuthError(
          t,
          res,
          {
            status: 400,
            error: 'unsupported_grant_type',
            rules: ['GRANT-UNSUPPORTED-GRANT-TYPE'],
            serverErrorRules: ['ERR-NO-SERVER-ERROR'],
            codeRules: ['ERR-TOKEN-STANDARD-CODES'],
          },
          'token request with an unknown grant_type',
        );
      });
    },
  },
  {
    id: 'grants.missing-parameter',
    suite: 'grants',
    title:
      'A token request without grant_type, or without a parameter its grant requires, is refused with invalid_request',
    rules: ['GRANT-MISSING-PARAMETER', 'ERR-TOKEN-STANDARD-CODES'],
    async run(t: CheckContext) {
      const app = t.oauth.app('confidential');
      const full = { grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: app.redirectUri };
      // Without code (or grant_type) the request is malformed; a wrong redirect_uri alone is invalid_grant, covered elsewhere.
      for (const missing of ['grant_type', 'code'] as const) {
        const res = await t.oauth.tokenRequest({ ...full, [missing]: undefined }, { app: 'confidential' });
        expectOAuthError(
          t,
          res,
          { ...MISSING, status: 400, error: 'invalid_request' },
          `token request without ${missing}`,
        );
      }
      const refreshRes = await t.oauth.tokenRequest(
        { grant_type: 'refresh_token', redirect_uri: app.redirectUri },
        { app: 'confidential' },
      );
      expectOAuthError(
        t,
        refreshRes,
        { ...MISSING, status: 400, error: 'invalid_request' },
        'refresh request without refresh_token',
      );
    },
  },
  {
    id: 'grants.json-body',
    suite: 'grants',
    title: 'The token endpoint accepts its parameters as a JSON body',
    rules: ['GRANT-JSON-BODY'],
    async run(t: CheckContext) {
      const app = t.oauth.app('confidential');
      const code = await authorizeCode(t, 'confidential', {});
      // In the JSON body beside the grant's fields, or by HTTP Basic where the start-up found the body refused.
      const { fields, clientBasic } = t.oauth.clientAuth('confidential');
      const res = await t.http.post(TOKEN_PATH, {
        json: { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri, ...fields },
        clientBasic,
      });
      trackBody(t, res, 'confidential');
      expectTokenFields(
        t,
        expectTokenOk(t, res, 'code exchange with a JSON body', ['GRANT-JSON-BODY']),
        'authorization_code',
        'code exchange with a JSON body',
      );
    },
  },
];
