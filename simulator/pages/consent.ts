/** The consent page: the application asks for scopes; approve or deny posts back to /oauth/authorize. */
import type { AuthorizeRequest } from '../oauth/authorize-request.js';
import { formatScope } from '../oauth/scopes.js';
import { FIELDS, decisionButtons, esc, hidden, page } from './layout.js';
import type { Answer } from '../http.js';

/** The title of a page that asks the user to let `appName` in. */
export const consentTitle = (appName: string): string => `Authorize ${appName} to use your account?`;

/**
 * What a consent says before its form: who is signed in, which application asks and for which
 * scopes. The device confirmation (device.ts) says the same.
 */
export function grantRequest(username: string, appName: string, scopes: readonly string[]): string {
  const items = scopes.map((s) => `<li><code>${esc(s)}</code></li>`).join('\n');
  return `<p>Signed in as <strong id="username">${esc(username)}</strong>.</p>
<p>An application called <strong id="application-name">${esc(appName)}</strong> is requesting access to your account. It will be able to:</p>
<ul id="scopes">
${items}
</ul>`;
}

export function consentPage(request: AuthorizeRequest, csrf: string, username: string): Answer {
  return page(
    200,
    consentTitle(request.app.name),
    `${grantRequest(username, request.app.name, request.scopes)}
<p>You will be redirected to <code>${esc(request.redirectUri)}</code>.</p>
<form id="consent" method="post" action="/oauth/authorize">
${hidden(FIELDS.csrf, csrf)}
${hidden('client_id', request.app.uid)}
${hidden('redirect_uri', request.redirectUri)}
${hidden('response_type', 'code')}
${hidden('state', request.state)}
${hidden('scope', formatScope(request.scopes))}
${hidden('code_challenge', request.codeChallenge)}
${hidden('code_challenge_method', request.codeChallengeMethod)}
${hidden('nonce', request.nonce)}
${decisionButtons('Authorize', 'Deny')}
</form>`,
    { formLandsOn: request.redirectUri },
  );
}
