/** Test helpers: an in-process simulator driven by supertest, a browser-like sign-in and consent. */
import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import { limits } from '../../../spec/index.js';
import { createSimulator } from '../../../simulator/core.js';
import { toNodeListener } from '../../../simulator/adapters/node.js';
import { seeded, type AppRole } from '../../../simulator/oauth/accounts.js';
import type { Sim, SimulatorOptions } from '../../../simulator/types.js';

export type Agent = InstanceType<typeof TestAgent>;

export interface World {
  sim: Sim;
  /** A cookie-keeping client (one browser). */
  browser: Agent;
  /** A fresh cookie-less client (a server or a device). */
  http: () => ReturnType<typeof request>;
}

/** A simulator on a frozen clock: time moves only when a test says so. */
export function world(options: SimulatorOptions = {}): World {
  const sim = createSimulator({ clock: { frozen: true }, ...options });
  const listener = toNodeListener(sim);
  return { sim, browser: request.agent(listener), http: () => request(listener) };
}

export function app(sim: Sim, role: AppRole) {
  return seeded(sim).applications[role];
}

export function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hidden inputs of the form with this id (what the page carries for the browser). */
export function formFields(html: string, id: string): Record<string, string> {
  const form = new RegExp(`<form id="${id}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form #${id} in page:\n${html.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const m of form[1].matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1]);
    const value = /value="([^"]*)"/.exec(m[1]);
    const type = /type="([^"]*)"/.exec(m[1])?.[1];
    if (name && type === 'hidden') fields[unescapeHtml(name[1])] = value ? unescapeHtml(value[1]) : '';
  }
  return fields;
}

export async function signIn(browser: Agent, username: string, password: string): Promise<void> {
  const page = await browser.get('/users/sign_in');
  const fields = formFields(page.text, 'sign-in');
  const res = await browser
    .post('/users/sign_in')
    .type('form')
    .send({ ...fields, 'user[login]': username, 'user[password]': password });
  if (res.status !== 302) throw new Error(`sign-in failed: ${res.status}`);
}

export async function signInRoot(w: World): Promise<void> {
  const { admin } = seeded(w.sim);
  await signIn(w.browser, admin.username, admin.password);
}

export function pkcePair(verifier = randomBytes(32).toString('base64url')) {
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface CodeOptions {
  scope?: string;
  state?: string;
  pkce?: boolean;
  verifier?: string;
  nonce?: string;
  decision?: 'approve' | 'deny';
}

/** Authorize in the browser (signed in already) and approve the consent form: the redirect URL. */
export async function consent(
  w: World,
  role: AppRole,
  options: CodeOptions = {},
): Promise<{ location: URL; verifier?: string }> {
  const a = app(w.sim, role);
  const pair = options.pkce || !a.confidential ? pkcePair(options.verifier) : undefined;
  const query: Record<string, string> = { client_id: a.uid, redirect_uri: a.redirectUris[0], response_type: 'code' };
  if (options.state !== undefined) query.state = options.state;
  if (options.scope !== undefined) query.scope = options.scope;
  if (options.nonce !== undefined) query.nonce = options.nonce;
  if (pair) Object.assign(query, { code_challenge: pair.challenge, code_challenge_method: 'S256' });
  const page = await w.browser.get('/oauth/authorize').query(query);
  if (page.status !== 200)
    throw new Error(`authorize answered ${page.status} ${page.headers.location ?? page.text.slice(0, 300)}`);
  const fields = formFields(page.text, 'consent');
  const res = await w.browser
    .post('/oauth/authorize')
    .type('form')
    .send({ ...fields, decision: options.decision ?? 'approve' });
  if (res.status !== 302) throw new Error(`consent answered ${res.status}`);
  return { location: new URL(res.headers.location), verifier: pair?.verifier };
}

/** A fresh authorization code of an application, with the verifier when PKCE was used. */
export async function code(
  w: World,
  role: AppRole,
  options: CodeOptions = {},
): Promise<{ code: string; verifier?: string }> {
  const { location, verifier } = await consent(w, role, options);
  const value = location.searchParams.get('code');
  if (!value) throw new Error(`no code in ${location}`);
  return { code: value, verifier };
}

/** The token-endpoint form of a code exchange as the source's table lists it for this app. */
export function exchangeForm(w: World, role: AppRole, value: string, verifier?: string): Record<string, string> {
  const a = app(w.sim, role);
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    client_id: a.uid,
    code: value,
    redirect_uri: a.redirectUris[0],
  };
  if (a.confidential) form.client_secret = a.secret;
  if (verifier) form.code_verifier = verifier;
  return form;
}

export async function tokens(w: World, role: AppRole, options: CodeOptions = {}) {
  const c = await code(w, role, options);
  const res = await w
    .http()
    .post('/oauth/token')
    .type('form')
    .send(exchangeForm(w, role, c.code, c.verifier));
  if (res.status !== 200) throw new Error(`exchange failed: ${res.status} ${res.text}`);
  return res.body as {
    access_token: string;
    refresh_token: string;
    id_token?: string;
    token_type: string;
    expires_in: number;
    created_at: number;
  };
}

export const L = limits();
