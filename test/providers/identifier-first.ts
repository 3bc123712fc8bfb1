/**
 * A provider whose sign-in asks for the username first and the password on the next step
 * (identifier-first, as Okta, Microsoft, Google, Auth0 and Keycloak can): the simulator behind a
 * small loopback server that replaces its sign-in page.
 *
 * - `pages`: plain HTML. The username page posts `identifier` to /users/identify, whose answer is
 *   the password page (the username echoed as a hidden field, shown as text) posting to the
 *   simulator's own /users/sign_in. An unknown username gets 401 and the username page again.
 * - `script`: one page at /users/sign_in with the username field and a "Next" button; its script
 *   asks /users/identify with fetch, then draws the password field in place (the username kept,
 *   read-only) and lets the form post to the simulator. An unknown username gets an error drawn in
 *   place, the page otherwise unchanged. Without script (the form posted with the username alone)
 *   the answer is the `pages` password page, as providers that work without JavaScript do: the
 *   harness's own HTTP sign-ins (application registration) still get through.
 * - `app`: the `script` page with no form (a "Next" button, then "Sign in", whose script builds a
 *   form and submits it), served to browser navigations only: other clients get the `pages` one.
 * - `formless`: the `pages` username page, then a password page whose fields stand in no form (a
 *   `<div role=button>` whose script posts them): one the form driver cannot submit.
 */
import type { IncomingMessage } from 'node:http';
import { createSimulator } from '../../simulator/core.js';
import { toNodeListener } from '../../simulator/adapters/node.js';
import { FIELDS, esc } from '../../simulator/pages/layout.js';
import { userByLogin } from '../../simulator/store.js';
import type { Sim } from '../../simulator/types.js';
import { parseForms } from '../../suites/drivers/html.js';
import { bodyOf, listen, sendAnswer, type Loopback } from '../suites/loopback.js';

export type IdentifierFirstMode = 'pages' | 'script' | 'app' | 'formless';

export interface IdentifierFirstProvider extends Loopback {
  sim: Sim;
  /** Usernames posted alone (`byScript`: of them, by the script page's fetch), and passwords. */
  posted: { usernames: number; byScript: number; passwords: number };
}

const IDENTIFIER = 'identifier';

const hiddenFields = (fields: Iterable<[string, string]>) =>
  [...fields].map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`).join('\n');

const html = (body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head><body>${body}</body></html>`;

function usernamePage(hidden: [string, string][], error?: string): string {
  return html(`<h1>Sign in</h1>${error ? `<p id="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/users/identify">
${hiddenFields(hidden)}
<label>Email or username <input type="text" name="${IDENTIFIER}" autocomplete="username" required></label>
<button type="submit">Next</button>
</form>`);
}

/** In a page's script: post `inputs` to the simulator's sign-in by a form it builds (a page whose fields stand in no form). */
const POST_FIELDS = `function postFields(inputs) {
  const form = Object.assign(document.createElement('form'), { method: 'post', action: '/users/sign_in', hidden: true });
  for (const input of inputs)
    form.append(Object.assign(document.createElement('input'), { type: 'hidden', name: input.name, value: input.value }));
  document.body.append(form);
  form.submit();
}`;

/** The password page; `inForm` false: its fields in a `<div>`, sent by its script's control. */
function passwordPage(hidden: [string, string][], login: string, inForm = true): string {
  const fields = `${hiddenFields([...hidden, [FIELDS.login, login]])}
<label>Password <input type="password" name="${FIELDS.password}" autocomplete="current-password" required></label>`;
  if (!inForm)
    return html(`<h1>Welcome</h1><p>Signing in as <strong>${esc(login)}</strong></p>
<div id="sign-in">${fields}<div role="button" id="go">Sign in</div></div>
<script>
${POST_FIELDS}
document.getElementById('go').addEventListener('click', () => postFields(document.querySelectorAll('#sign-in input')));
</script>`);
  return html(`<h1>Welcome</h1><p>Signing in as <strong>${esc(login)}</strong></p>
<form method="post" action="/users/sign_in">
${fields}
<button type="submit">Sign in</button>
</form>`);
}

/** The `script` page, or (`app`) the same without a form: its script posts the sign-in by a form it builds. */
function scriptPage(hidden: [string, string][], inForm: boolean): string {
  const [tag, attrs, type] = inForm
    ? ['form', ' method="post" action="/users/sign_in"', 'submit']
    : ['div', '', 'button'];
  return html(`<h1>Sign in</h1>
<${tag} id="sign-in"${attrs}>
${hiddenFields(hidden)}
<label>Username <input type="text" id="login" name="${FIELDS.login}" autocomplete="username" required></label>
<div id="secret"></div>
<p id="error" role="alert"></p>
<button type="${type}" id="next">Next</button>
</${tag}>
<script>
${POST_FIELDS}
const root = document.getElementById('sign-in');
const login = document.getElementById('login');
const next = document.getElementById('next');
const asksPassword = () => !!root.querySelector('input[type=password]');
async function identify() {
  const answer = await fetch('/users/identify', { method: 'POST', body: new URLSearchParams({ ${IDENTIFIER}: login.value }) });
  if (!answer.ok) return void (document.getElementById('error').textContent = 'We could not find that account.');
  login.readOnly = true;
  const password = Object.assign(document.createElement('input'), { type: 'password', name: ${JSON.stringify(FIELDS.password)} });
  const label = document.createElement('label');
  label.append('Password ', password);
  document.getElementById('secret').append(label);
  next.textContent = 'Sign in';
}
if (root.tagName === 'FORM')
  root.addEventListener('submit', (event) => {
    if (asksPassword()) return;
    event.preventDefault();
    void identify();
  });
else
  next.addEventListener('click', () => {
    if (!asksPassword()) return void identify();
    postFields(root.querySelectorAll('input'));
  });
</script>`);
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  return headers;
}

export async function identifierFirstProvider(mode: IdentifierFirstMode): Promise<IdentifierFirstProvider> {
  const sim = createSimulator();
  const listener = toNodeListener(sim);
  const posted = { usernames: 0, byScript: 0, passwords: 0 };
  let origin = '';

  /** The simulator's sign-in page, its hidden fields (CSRF token, return path) kept in our own page. */
  async function signInPage(req: IncomingMessage): Promise<Response> {
    const answer = await sim.handle(
      new Request(`${origin}${req.url}`, { headers: headersOf(req), redirect: 'manual' }),
    );
    if (answer.status !== 200) return answer;
    const form = parseForms(await answer.text()).find((f) => f.attrs.id === 'sign-in');
    const hidden = (form?.fields ?? [])
      .filter((f) => f.type === 'hidden')
      .map((f): [string, string] => [f.name, f.value]);
    // The formless page is a browser's only (as spa-provider's shell): HTTP clients get the plain one.
    const page =
      mode === 'pages' || mode === 'formless' || (mode === 'app' && req.headers['sec-fetch-mode'] !== 'navigate')
        ? usernamePage
        : (fields: [string, string][]) => scriptPage(fields, mode === 'script');
    const out = new Headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    for (const cookie of answer.headers.getSetCookie()) out.append('set-cookie', cookie);
    return new Response(page(hidden), {
      status: 200,
      headers: out,
    });
  }

  /** The username alone: a known one gets the password page, an unknown one 401 and the username page. */
  function identify(body: string): Response {
    posted.usernames++;
    const form = new URLSearchParams(body);
    const login = form.get(IDENTIFIER) ?? form.get(FIELDS.login) ?? '';
    const hidden = [...form].filter(([name]) => name !== IDENTIFIER && name !== FIELDS.login);
    const type = { 'content-type': 'text/html; charset=utf-8' };
    if (!userByLogin(sim.store, login))
      return new Response(usernamePage(hidden, 'We could not find that account.'), { status: 401, headers: type });
    return new Response(passwordPage(hidden, login, mode !== 'formless'), { status: 200, headers: type });
  }

  /** The simulator's sign-in, or, with the username alone (the script page without script), the password page. */
  async function signIn(req: IncomingMessage): Promise<Response> {
    const body = (await bodyOf(req)).toString('utf8');
    if (!new URLSearchParams(body).has(FIELDS.password)) return identify(body);
    posted.passwords++;
    return sim.handle(
      new Request(`${origin}${req.url}`, { method: 'POST', headers: headersOf(req), body, redirect: 'manual' }),
    );
  }

  const served = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const own =
      req.method === 'GET' && path === '/users/sign_in'
        ? signInPage
        : req.method === 'POST' && path === '/users/identify'
          ? (r: IncomingMessage) => {
              if (r.headers['sec-fetch-mode'] === 'cors') posted.byScript++;
              return bodyOf(r).then((body) => identify(body.toString('utf8')));
            }
          : req.method === 'POST' && path === '/users/sign_in'
            ? signIn
            : undefined;
    if (!own) return listener(req, res);
    sendAnswer(res, own(req));
  });
  origin = served.url;
  return { ...served, sim, posted };
}
