/**
 * A provider whose sign-in and consent pages are a JavaScript application, as many real ones are:
 * the simulator behind a small loopback server. A navigation to `/users/sign_in` or
 * `/oauth/authorize` gets an application shell with no `<form>`; its script reads the simulator's
 * own pages through `/spa/…` (the simulator's answer, a redirect turned into `{location}` JSON so
 * the script can read it), posts the credentials and the decision with `fetch`, changes the URL
 * with the History API, and hands over to the application by a client-side navigation or behind a
 * "Continue" button. Everything else (token endpoint, API, control API) is the simulator as it is.
 */
import type { IncomingMessage } from 'node:http';
import { createSimulator } from '../../simulator/core.js';
import { toNodeListener } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import type { Sim } from '../../simulator/types.js';
import type { DriverConfig, TargetConfig } from '../../spec/target-config.js';
import { bodyOf, listen, sendAnswer, type Loopback } from '../suites/loopback.js';

export interface SpaOptions {
  /** How the application is reached after the decision: at once by script, or by a button. */
  handover: 'navigate' | 'continue';
  /** Labels of the app's buttons (other than the defaults the driver knows, to need selectors). */
  labels?: { signIn?: string; approve?: string; deny?: string; continue?: string };
  /**
   * Who gets the application shell: browser navigations (Sec-Fetch-Mode: navigate; other clients,
   * the harness's own requests, see the simulator's answers), or every GET asking for HTML.
   */
  shellFor?: 'navigations' | 'html';
}

export interface SpaProvider extends Loopback {
  sim: Sim;
  /** The simulator's target config at this server's URL, the browser driver with `driver` over it. */
  config(driver?: Partial<DriverConfig>): TargetConfig;
  /** Requests the script sent through `/spa/` (method and path), to show that fetch did the work. */
  fetched: string[];
}

const PREFIX = '/spa';

function shell(options: SpaOptions): string {
  const labels = { signIn: 'Sign in', approve: 'Authorize', deny: 'Deny', continue: 'Continue', ...options.labels };
  const settings = JSON.stringify({ handover: options.handover, labels }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><div id="app">Loading…</div>
<script>
const settings = ${settings};
const app = document.getElementById('app');
const parse = (html) => new DOMParser().parseFromString(html, 'text/html');
function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}
const show = (...children) => { app.replaceChildren(...children); };

async function call(path, init) {
  const r = await fetch('${PREFIX}' + path, { credentials: 'same-origin', ...init });
  const text = await r.text();
  if (r.headers.get('x-spa-redirect')) return { location: JSON.parse(text).location };
  return { status: r.status, doc: parse(text) };
}

function fields(root) {
  const out = new URLSearchParams();
  for (const input of root.querySelectorAll('input[type=hidden]')) out.set(input.name, input.value);
  return out;
}

async function follow(location) {
  const url = new URL(location, window.location.href);
  if (url.origin === window.location.origin && (url.pathname === '/users/sign_in' || url.pathname === '/oauth/authorize')) {
    history.pushState(null, '', url.pathname + url.search);
    return route();
  }
  window.location.assign(url.href);
}

async function signIn() {
  const returnTo = new URLSearchParams(window.location.search).get('redirect_to') || '/';
  const page = await call('/users/sign_in?redirect_to=' + encodeURIComponent(returnTo));
  const hidden = fields(page.doc);
  const login = el('input', { id: 'login', type: 'text', autocomplete: 'username' });
  const password = el('input', { id: 'secret', type: 'password', autocomplete: 'current-password' });
  const error = el('p', { id: 'error', role: 'alert' });
  const button = el('button', { type: 'button', id: 'sign-in-button', textContent: settings.labels.signIn });
  button.addEventListener('click', async () => {
    button.disabled = true;
    hidden.set('user[login]', login.value);
    hidden.set('user[password]', password.value);
    const answer = await call('/users/sign_in', { method: 'POST', body: hidden });
    button.disabled = false;
    if (answer.location) return follow(answer.location);
    error.textContent = answer.doc.querySelector('#error')?.textContent ?? 'Sign-in failed';
  });
  show(el('h1', { textContent: 'Sign in' }), el('label', {}, 'Username ', login), el('label', {}, 'Password ', password), button, error);
}

async function authorize() {
  const page = await call('/oauth/authorize' + window.location.search);
  if (page.location) return follow(page.location);
  const consent = page.doc.querySelector('form#consent');
  if (!consent) return show(el('p', { id: 'message', textContent: page.doc.querySelector('#message')?.textContent ?? 'Refused' }));
  const hidden = fields(consent);
  const decide = (decision) => async () => {
    hidden.set('decision', decision);
    const answer = await call('/oauth/authorize', { method: 'POST', body: hidden });
    if (!answer.location) return show(el('p', { id: 'message', textContent: 'Refused' }));
    if (settings.handover === 'navigate') return setTimeout(() => window.location.assign(answer.location), 100);
    const go = el('button', { type: 'button', id: 'go', textContent: settings.labels.continue });
    go.addEventListener('click', () => window.location.assign(answer.location));
    show(el('p', { textContent: 'Done. You can go back to the application.' }), go);
  };
  const approve = el('button', { type: 'button', id: 'approve-button', textContent: settings.labels.approve });
  const deny = el('button', { type: 'button', id: 'deny-button', textContent: settings.labels.deny });
  approve.addEventListener('click', decide('approve'));
  deny.addEventListener('click', decide('deny'));
  show(el('h1', { textContent: 'Authorize ' + (page.doc.querySelector('#application-name')?.textContent ?? '') + '?' }), approve, deny);
}

function route() {
  return window.location.pathname === '/users/sign_in' ? signIn() : authorize();
}
route();
</script></body></html>`;
}

/** The simulator's answer to a script's call: a redirect becomes JSON the script can read. */
async function viaScript(sim: Sim, origin: string, req: IncomingMessage): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string' && !name.startsWith(':')) headers.set(name, value);
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : new Uint8Array(await bodyOf(req));
  const answer = await sim.handle(
    new Request(`${origin}${(req.url ?? '/').slice(PREFIX.length)}`, { method, headers, body, redirect: 'manual' }),
  );
  const location = answer.headers.get('location');
  if (answer.status < 300 || answer.status >= 400 || !location) return answer;
  const out = new Headers({ 'content-type': 'application/json', 'x-spa-redirect': '1', 'cache-control': 'no-store' });
  for (const cookie of answer.headers.getSetCookie()) out.append('set-cookie', cookie);
  return new Response(JSON.stringify({ location: new URL(location, origin).href }), { status: 200, headers: out });
}

export async function spaProvider(options: SpaOptions): Promise<SpaProvider> {
  const sim = createSimulator();
  const listener = toNodeListener(sim);
  const fetched: string[] = [];
  let origin = '';
  const served = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const navigation =
      req.method === 'GET' &&
      (req.headers['sec-fetch-mode'] === 'navigate' ||
        (options.shellFor === 'html' && /text\/html/.test(req.headers.accept ?? '')));
    if (navigation && (path === '/users/sign_in' || path === '/oauth/authorize')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return void res.end(shell(options));
    }
    if (!path.startsWith(`${PREFIX}/`)) return listener(req, res);
    fetched.push(`${req.method} ${path.slice(PREFIX.length)}`);
    sendAnswer(res, viaScript(sim, origin, req));
  });
  origin = served.url;
  return {
    ...served,
    sim,
    fetched,
    config: (driver = {}) => ({ ...targetConfig(sim, served.url), driver: { kind: 'browser', ...driver } }),
  };
}
