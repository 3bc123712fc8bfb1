/**
 * Sign-in journeys of providers the simulator does not imitate: the simulator behind a small
 * loopback server that redraws its sign-in or consent page and puts pages of its own between a
 * right password and the authorization ("Stay signed in?", terms to accept, a second factor…).
 * Everything else (token endpoint, API, control API) is the simulator as it is.
 *
 * - `signInPage`: the simulator's sign-in page redrawn (a CAPTCHA added, the fields renamed);
 *   `fields`: its own field names, posted back under the simulator's; `requires`: one it must carry.
 * - `after`: the pages a right password leads to, in order; each posts to `/journey` and is shown
 *   again until what it asks is given (`passes`); the last one passed leads on to the simulator's
 *   own redirect. A page with no form passes by a link to `/journey` (an account picker of plain links)
 *   or never (an e-mail link to click).
 * - `wrongPassword`: what the simulator's 401 with its sign-in form becomes.
 * - `banner`: drawn before the consent form (a cookie banner).
 * - `decisions`: the consent page's two buttons redrawn; the approving control posts `choice=1` (or
 *   `Autoriser`), the denying one anything else, turned back into the simulator's decision.
 * - `consentPage`: the whole consent page's body redrawn, given the simulator's hidden fields (to
 *   put in a form or a script's); its controls post `choice` as `decisions`' do.
 * - `connectors`: Dex's choice of connector before the sign-in, a link each ("Log in with GitHub",
 *   on GitHub's origin; "Log in with LDAP"; "Log in with Email", at CONNECTOR_PATH, which leads to
 *   the simulator's sign-in form).
 */
import type { IncomingMessage } from 'node:http';
import { createSimulator } from '../../simulator/core.js';
import { toNodeListener } from '../../simulator/adapters/node.js';
import { FIELDS } from '../../simulator/pages/layout.js';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, listen, sendAnswer, type Loopback } from '../suites/loopback.js';

export interface JourneyStep {
  /**
   * The page, given the form that carries its answer to `/journey` (`form(inner)`), and the URL of
   * a link that carries it (`link(query)`: a GET of `/journey`, the answer in its query).
   */
  page: (form: (inner: string) => string, link: (query: string) => string) => string;
  /** Does the posted form get past this page? */
  passes: (posted: URLSearchParams) => boolean;
}

export interface Journey {
  signInPage?: (html: string) => string;
  fields?: Record<string, string>;
  /** A field the sign-in must carry (a terms box): without it, 422 and a page saying so. */
  requires?: string;
  after?: JourneyStep[];
  wrongPassword?: { status: number; page: string };
  decisions?: string;
  /** The consent page's body, given the simulator's hidden fields (their markup). */
  consentPage?: (hidden: string) => string;
  /** Drawn on the consent page before its form (a cookie banner). */
  banner?: string;
  connectors?: boolean;
}

/** Where Dex's local (e-mail and password) connector starts: the configured user's way to sign in. */
export const CONNECTOR_PATH = '/dex/auth/local';

/** Dex's connector choice, each link carrying where the sign-in goes back to. */
function connectorChoice(req: IncomingMessage, origin: string): Response {
  const back = new URL(req.url ?? '/', origin).searchParams.get('redirect_to') ?? '/';
  const req_ = encodeURIComponent(back);
  const ways = [
    ['https://github.example.invalid/login/oauth/authorize?client_id=dex', 'GitHub'],
    [`/dex/auth/ldap?req=${req_}`, 'LDAP'],
    [`${CONNECTOR_PATH}?req=${req_}`, 'Email'],
  ];
  return htmlAnswer(
    200,
    page(
      'Log in to dex',
      `<ul>${ways.map(([href, name]) => `<li><a class="dex-btn" href="${href}"><span>Log in with ${name}</span></a></li>`).join('')}</ul>`,
    ),
  );
}

export interface JourneyProvider extends Loopback {
  sim: Sim;
  /** Passwords posted, and the answers posted to the journey's own pages. */
  posted: { passwords: number; steps: number };
  /** Decisions posted by the redrawn consent buttons (`decisions`), by what they decided. */
  decided: { approve: number; deny: number };
}

/** A value put into a page's markup (an attribute or text), inert. */
export const escaped = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export const page = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  return headers;
}

/** An HTML answer of ours (no CSP: a journey's page may run its script), the simulator's cookies passed on. */
function htmlAnswer(status: number, body: string, from?: Response): Response {
  const headers = new Headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  for (const cookie of from?.headers.getSetCookie() ?? []) headers.append('set-cookie', cookie);
  return new Response(body, { status, headers });
}

/** The simulator's consent form's hidden fields: its markup up to the first button. */
const CONSENT_HIDDEN = /<form id="consent"[^>]*>([\s\S]*?)<button/;
const DECISION_BUTTONS = /<button type="submit" name="decision" value="approve">[\s\S]*?value="deny">[^<]*<\/button>/;

export async function journeyProvider(journey: Journey): Promise<JourneyProvider> {
  const sim = createSimulator();
  const listener = toNodeListener(sim);
  const posted = { passwords: 0, steps: 0 };
  const decided = { approve: 0, deny: 0 };
  /**
   * Sign-ins on their way through `after`: where the simulator sent them, the page they are on, and
   * the session it started, held back until the last page is passed (as a provider that asks for a
   * second factor lets nobody in before it).
   */
  const pending = new Map<string, { location: string; at: number; session: Response }>();
  let origin = '';

  const forward = async (req: IncomingMessage, body?: string) =>
    sim.handle(
      new Request(`${origin}${req.url}`, {
        method: req.method,
        headers: headersOf(req),
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
      }),
    );

  const stepPage = (id: string, at: number) =>
    htmlAnswer(
      200,
      journey.after![at].page(
        (inner) =>
          `<form method="post" action="/journey"><input type="hidden" name="journey" value="${id}">${inner}</form>`,
        (query) => `/journey?journey=${id}&amp;${query}`,
      ),
    );

  async function signIn(req: IncomingMessage): Promise<Response> {
    const form = new URLSearchParams((await bodyOf(req)).toString('utf8'));
    for (const [own, simulator] of Object.entries(journey.fields ?? {})) {
      form.set(simulator, form.get(own) ?? '');
      form.delete(own);
    }
    posted.passwords++;
    if (journey.requires && !form.has(journey.requires))
      return htmlAnswer(422, page('Sign in', '<p>Please accept the terms of use to sign in.</p>'));
    const answer = await forward(req, form.toString());
    if (answer.status === 401 && journey.wrongPassword)
      return htmlAnswer(journey.wrongPassword.status, journey.wrongPassword.page, answer);
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location || !journey.after?.length) return answer;
    const id = crypto.randomUUID();
    pending.set(id, { location, at: 0, session: answer });
    return stepPage(id, 0);
  }

  async function step(req: IncomingMessage): Promise<Response> {
    posted.steps++;
    const form = new URLSearchParams(
      req.method === 'GET' ? new URL(req.url ?? '/', origin).search : (await bodyOf(req)).toString('utf8'),
    );
    const id = form.get('journey') ?? '';
    const at = pending.get(id);
    if (!at) return htmlAnswer(400, page('Start again', '<p>This sign-in expired.</p>'));
    if (journey.after![at.at].passes(form)) at.at++;
    if (at.at < journey.after!.length) return stepPage(id, at.at);
    pending.delete(id);
    const headers = new Headers({ location: at.location });
    for (const cookie of at.session.headers.getSetCookie()) headers.append('set-cookie', cookie);
    return new Response(null, { status: 302, headers });
  }

  async function redrawn(req: IncomingMessage, redraw: (html: string) => string): Promise<Response> {
    const answer = await forward(req);
    if (answer.status !== 200) return answer;
    return htmlAnswer(200, redraw(await answer.text()), answer);
  }

  /** The consent's decision as posted by the redrawn buttons, turned back into the simulator's. */
  async function decide(req: IncomingMessage): Promise<Response> {
    const form = new URLSearchParams((await bodyOf(req)).toString('utf8'));
    const choice = form.get('choice');
    const decision = /^(1|autoriser)$/i.test(choice ?? '') ? 'approve' : 'deny';
    if (choice) form.set(FIELDS.decision, decision);
    if (choice) decided[decision]++;
    form.delete('choice');
    return forward(req, form.toString());
  }

  const served = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = `${req.method} ${path}`;
    const chosen = new URL(req.url ?? '/', origin).searchParams.has('connector');
    const own =
      route === 'GET /users/sign_in' && journey.connectors && !chosen
        ? (r: IncomingMessage) => Promise.resolve(connectorChoice(r, origin))
        : route === `GET ${CONNECTOR_PATH}` && journey.connectors
          ? (r: IncomingMessage) => {
              const back = new URL(r.url ?? '/', origin).searchParams.get('req') ?? '/';
              const location = `/users/sign_in?connector=local&redirect_to=${encodeURIComponent(back)}`;
              return Promise.resolve(new Response(null, { status: 302, headers: { location } }));
            }
          : route === 'GET /users/sign_in' && journey.signInPage
            ? (r: IncomingMessage) => redrawn(r, journey.signInPage!)
            : route === 'POST /users/sign_in'
              ? signIn
              : route === 'POST /journey' || route === 'GET /journey'
                ? step
                : route === 'GET /oauth/authorize' && journey.consentPage
                  ? (r: IncomingMessage) =>
                      redrawn(r, (html) =>
                        page('Sample App', journey.consentPage!(CONSENT_HIDDEN.exec(html)?.[1] ?? '')),
                      )
                  : route === 'GET /oauth/authorize' && (journey.decisions || journey.banner)
                    ? (r: IncomingMessage) =>
                        redrawn(r, (html) =>
                          html
                            .replace(DECISION_BUTTONS, journey.decisions ?? '$&')
                            .replace('<form id="consent"', `${journey.banner ?? ''}<form id="consent"`),
                        )
                    : route === 'POST /oauth/authorize' && (journey.decisions || journey.consentPage)
                      ? decide
                      : undefined;
    if (!own) return listener(req, res);
    sendAnswer(res, own(req));
  });
  origin = served.url;
  return { ...served, sim, posted, decided };
}
