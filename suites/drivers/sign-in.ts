/**
 * A refused sign-in of the configured user is a missing premise, not a verdict on the provider:
 * the first refusal errors its check with the reason, once; from then on the run tries no other
 * sign-in (a wrong password sent for every check would lock a real account, and the simulator
 * throttles it too) and each check that needs one is skipped, saying why. Kept per run, by the
 * run's Http, which the run's driver and each check's form browser share.
 */
import type { Http, TargetConfig } from '../types.js';
import { CheckSkipped, HarnessError, NoVerdict } from '../runner/errors.js';
import { CONSENT_PHRASES, controlPattern, IDENTIFIER_WORDS, SIGN_IN_WAY_PATTERN } from './defaults.js';
import { granted, handsOverTo, signInGoesOn } from './hand-over.js';
import { isRateLimited } from '../target/rate.js';
import { decodeEntities, pageText, parseLinks, type FormField, type HtmlForm, type SubmitButton } from './html.js';

/** Per run, why no sign-in is tried again: the sentence each later check is skipped with. */
const refusals = new WeakMap<Http, string>();
/** Runs in which a sign-in of the configured user went through: the way in is playable. */
const signedInRuns = new WeakSet<Http>();

/** A driver's sign-in got through (a refused one throws before). */
/** Runs in which a driver pressed an approve or deny control: the provider shows consents. */
const consentRuns = new WeakSet<Http>();

/** A decision control was pressed in the run of `http`. */
export const consentMet = (http: Http) => void consentRuns.add(http);

/** Was a decision control pressed in the run of `http`? */
export const consentShown = (http: Http) => consentRuns.has(http);

export function signedInOnce(http: Http): void {
  signedInRuns.add(http);
}

export class SignInRefused extends HarnessError {
  override name = 'SignInRefused';
}

/** Before the configured user's credentials are submitted: not again after a refusal. */
export function beforeSignIn(http: Http): void {
  const earlier = refusals.get(http);
  if (earlier !== undefined) throw new CheckSkipped(earlier);
}

/** The configured user, before any of their sign-in is sent: none configured, or refused earlier, skips. */
export function signInUser(http: Http, config: TargetConfig): NonNullable<TargetConfig['user']> {
  if (!config.user) throw new CheckSkipped('the target asks to sign in and the config names no user');
  beforeSignIn(http);
  return config.user;
}

/**
 * A client error answering the credentials is a refusal (no answer: nothing to judge). A rate limit
 * (rate.ts isRateLimited: a 429, a 403 or 503 naming a wait) declines to serve now and says nothing
 * of the credentials: left to the driver's rate-limit path, never blamed on the config.
 * `scripted`: the sign-in page ran a script the driver did not (the form driver), which may have
 * been what the provider missed (a CSRF token copied into the form), said with any status but 401.
 */
export function refusedIfClientError(
  http: Http,
  answer: { status: number; headers: Headers } | undefined,
  scripted = false,
): void {
  if (answer === undefined || isRateLimited(answer.status, answer.headers)) return;
  const { status } = answer;
  if (status < 400 || status >= 500) return;
  signInRefused(
    http,
    `status ${status}${
      scripted && status !== 401
        ? '; its sign-in page runs a script, which the form driver does not (one may add a token to the form): driver: browser may get through'
        : ''
    }`,
  );
}

/** The provider answered the configured user's sign-in with `detail` (its status, its sign-in form again). */
export function signInRefused(http: Http, detail: string): never {
  refusals.set(
    http,
    `the provider refused the configured user's sign-in earlier in this run (${detail}); it is not tried again`,
  );
  throw new SignInRefused(
    `the provider refused the sign-in of the configured user (${detail}): check user.username and user.password in the target config (a second factor or a CAPTCHA is beyond the driver); what needs a signed-in user is not tested`,
  );
}

/**
 * The sign-in asks for `what` (a one-time code, a CAPTCHA, a link sent by e-mail), which no
 * driver can give: a missing premise like a refusal, said once, and no sign-in is tried again in
 * the run. Skipped instead when the run has already said so (or met a refusal).
 */
export function signInNeedsPerson(http: Http, what: string): never {
  beforeSignIn(http);
  refusals.set(
    http,
    `the provider's sign-in needs a person (${what}), found earlier in this run; it is not tried again`,
  );
  throw new SignInRefused(
    `the provider's sign-in asks for ${what}, which needs a person: sign in yourself with driver: manual; what needs a signed-in user is not tested`,
  );
}

/**
 * The provider's sign-in page could not be played (`what`: a control the page would not let the
 * driver use, a script that never yields, the sign-in sent to a new window or answered with a
 * download): every check's way in meets it, so it is said once, errored, like a refusal but never
 * as one (the password was not judged), and each later check that needs a sign-in is skipped; the
 * password is not typed again and again.
 */
export function signInUnplayable(http: Http, what: string): never {
  beforeSignIn(http);
  refusals.set(
    http,
    `the provider's sign-in page could not be played earlier in this run (${what}); it is not tried again`,
  );
  throw new HarnessError(`${what}; what needs a signed-in user is not tested`);
}

/** Has the run of `http` stopped trying sign-ins (refused, or a sign-in page that cannot be played)? */
export const signInStopped = (http: Http) => refusals.has(http);

/**
 * An account picker naming none of the configured user's accounts: no other is picked (its consent
 * is not the user's, nor "Use another account", which signs in afresh), a missing premise said
 * once like a refusal; skipped instead when the run has said it already.
 */
export function accountNotListed(http: Http): never {
  beforeSignIn(http);
  refusals.set(
    http,
    "the provider's account picker listed no account of the configured user earlier in this run; no account is picked",
  );
  throw new SignInRefused(
    "the provider's account picker lists no account of the configured user: no other account is picked; check user.username in the target config (as the picker shows it); what needs a signed-in user is not tested",
  );
}

/**
 * A page the form driver cannot play (`what`): a page with no form, drawn by a script (a sign-in
 * application: Authentik's, Zitadel's), or sign-in fields in no form, sent by a script's control.
 * Only the sign-in is every check's way in: when `signIn` (the page asks for a password, or was met
 * on the way from a redirect to the sign-in path) and no sign-in has gone through in the run, the
 * harness's limit is said once like a refusal, skipped instead when said already. Any other such
 * page (a device page; a consent after a sign-in, which consentScripted says once) is `otherwise`'s.
 */
export function signInScripted(
  http: Http,
  what: string,
  advice: string,
  signIn: boolean,
  otherwise: () => never,
): never {
  if (!signIn || signedInRuns.has(http)) otherwise();
  beforeSignIn(http);
  refusals.set(http, `${what}: seen earlier in this run; the form driver cannot play it, so it is not tried again`);
  throw new SignInRefused(`${what}, so what needs a signed-in user is not tested: ${advice}`);
}

/** Per run, the consent a script draws that the form driver met: the sentence each later visit is skipped with. */
const scriptedConsents = new WeakMap<Http, string>();

/**
 * Signed in, an authorization answered with a page a script draws (Authelia's consent, a React
 * application): every later authorization meets it too, so it is one cause of the run, said once
 * (`what`, with `advice`) on the check that met it first, and each later check that meets it is
 * skipped saying so. The sign-in went through: nothing is refused, no sign-in is held back (a device
 * page may still be a form).
 */
export function consentScripted(http: Http, what: string, advice: string): never {
  const earlier = scriptedConsents.get(http);
  if (earlier !== undefined) throw new CheckSkipped(earlier);
  scriptedConsents.set(
    http,
    `${what}: seen earlier in this run; the form driver cannot play it, so what needs the user's decision is not tested`,
  );
  throw new HarnessError(`${what}, so what needs the user's decision is not tested: ${advice}`);
}

/** What goes on elsewhere, by what the driver had done: its application's name, what it leaves untested. */
const ELSEWHERE = {
  'sign-in': { app: 'a login application', untested: 'what needs a signed-in user' },
  // Signed in on the provider's origin, the decision is asked elsewhere (Ory Hydra's consent application).
  consent: { app: 'a consent application', untested: "what needs the user's decision" },
} as const;

/**
 * The provider sends the sign-in (or, once signed in, the consent) on to a page where the harness
 * may not go (`why`: another origin than the target's, not in trustedOrigins; hand-over.ts,
 * signInGoesOn): nothing is sent there. A missing premise of the config, said once like a
 * refusal; the provider is not blamed.
 */
export function signInElsewhere(http: Http, to: URL, why: string, step: keyof typeof ELSEWHERE = 'sign-in'): never {
  beforeSignIn(http);
  refusals.set(
    http,
    `the provider's ${step} went on at ${to.origin} earlier in this run, which ${why}; it is not tried again`,
  );
  throw new SignInRefused(
    `the provider's ${step} goes on at ${to.origin}${to.pathname}, which ${why}: nothing was sent there; if it is the provider's own (${ELSEWHERE[step].app}), list ${to.origin} in trustedOrigins; ${ELSEWHERE[step].untested} is not tested`,
  );
}

/**
 * A redirect to `to`, off the provider (`why`: http.leaves) before any decision, that is not the
 * provider's answer to the application (hand-over.ts, signInGoesOn): the sign-in (or, `step`
 * consent, the decision) going on where nothing may be sent, said once for the run
 * (signInElsewhere). Answering a request the check malformed on purpose (AuthorizeOptions), it may
 * as well be the provider's error page as its sign-in: no verdict for that case (NoVerdict), and
 * neither the check nor the run's sign-in is judged by it.
 */
export function goingOnElsewhere(
  http: Http,
  to: URL,
  why: string,
  handOver: { redirectUris: readonly string[]; asked: string | null; malformed?: boolean },
  step: keyof typeof ELSEWHERE,
): void {
  if (!signInGoesOn(to.href, handOver.redirectUris, handOver.asked)) return;
  if (handOver.malformed)
    throw new NoVerdict(
      `the provider answered the request this check malformed with a redirect to ${to.origin}${to.pathname}, which ${why}: nothing was sent there, and its error page cannot be told from its ${step} going on there`,
    );
  signInElsewhere(http, to, why, step);
}

/** Two URL paths the same but for a trailing slash. */
export const samePath = (a: string, b: string) => a.replace(/(?<!^)\/$/, '') === b.replace(/(?<!^)\/$/, '');

/** A path as a server may read it: percent-decoded, one case, repeated and trailing slashes dropped. */
function plainPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A stray `%` is kept as it is.
  }
  return decoded.toLowerCase().replace(/\/{2,}/g, '/');
}

const SIGN_IN_WAY = new RegExp(SIGN_IN_WAY_PATTERN, 'i');
const GOES_ON = new RegExp(controlPattern('step'), 'i');
const AWAY = new RegExp(controlPattern('away'), 'i');
/** A link that decides, puts off or answers a question: the decision's, never a mere step's (continuation). */
const DECIDES = new RegExp((['approve', 'deny', 'postpone', 'yes', 'no'] as const).map(controlPattern).join('|'), 'i');
/** A link set aside (a cookie banner's "Accept cookies", "Accept all"): it decides nothing about the application. */
const ASIDE = new RegExp(`${controlPattern('aside')}|${controlPattern('asideLink')}`, 'i');
/** A consent's wording (CONSENT_PHRASES), as whole words. */
const CONSENT = new RegExp(`(?<![\\p{L}\\p{N}])(?:${CONSENT_PHRASES.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
const decides = (link: { label: string }) => DECIDES.test(link.label) && !ASIDE.test(link.label);

const APPROVES = new RegExp(controlPattern('approve'), 'i');
const DECISION = new RegExp(`${controlPattern('approve')}|${controlPattern('deny')}`, 'i');
const ANSWERS = { approve: new RegExp(controlPattern('yes'), 'i'), deny: new RegExp(controlPattern('no'), 'i') };
const POSTPONES = new RegExp(controlPattern('postpone'), 'i');

/**
 * Does a page's link lead on: an http(s) link, neither back to the sign-in (driver.signInPath, on
 * any origin: a login application's too; its path read case- and percent-encoding-insensitively)
 * nor to the page itself (a fragment, "Try again")? One reading for continuation and decidedByLinks.
 */
function leadsOn(href: string, pageUrl: string, signInPath: string): boolean {
  if (!URL.canParse(href, pageUrl)) return false;
  const to = new URL(href, pageUrl);
  if (to.protocol !== 'http:' && to.protocol !== 'https:') return false;
  const here = new URL(pageUrl);
  const path = plainPath(to.pathname);
  if (samePath(path, plainPath(signInPath))) return false;
  return to.origin !== here.origin || `${path}${to.search}` !== `${plainPath(here.pathname)}${here.search}`;
}

/**
 * A link that may be a decision's: it says the decision's or a question's words, nothing set aside
 * (a cookie banner's), nothing that leaves the session or signs in another way, and leads on.
 */
const decisive = (link: { href: string; label: string }, pageUrl: string, signInPath: string) =>
  !ASIDE.test(link.label) &&
  !AWAY.test(link.label) &&
  !isSignInWay(link.label) &&
  leadsOn(link.href, pageUrl, signInPath);

/**
 * A page whose links approve (a consent of links: "Accept and continue"): answering the password, it
 * cannot be told from a refusal whose links say approving words, so it is said once for the run
 * (answeredByLinks), the password sent once, nothing followed, never a refusal blaming the config.
 * Approving words only, on a link that leads on, on the target's origins or off them (a consent of
 * the provider's on an origin the config does not name is no refusal either); a link back to the
 * sign-in on any origin (a login application's), a refusal page's skip link, Cancel, "No account?
 * Sign up", "Try again", a cookie banner's "Accept all" keep it a refusal.
 */
export const decidedByLinks = (html: string, pageUrl: string, signInPath: string) =>
  URL.canParse(pageUrl) &&
  parseLinks(html).some((link) => APPROVES.test(link.label) && decisive(link, pageUrl, signInPath));

/** A page's title, for a sentence that names the page (the page is the target's: cut). */
const TITLE = /<title\b[^>]*>([^<]{0,200})/i;
/** How many ways, and how much of each label, a sentence names (the page is the target's). */
const WAYS_SAID = 6;
const WAY_LABEL = 60;

/**
 * A way to sign in a page offers: where it leads (a link's href, a form's action) and what it
 * says; a form's button carries its form.
 */
export interface SignInWay {
  href: string;
  label: string;
  form?: HtmlForm;
  button?: SubmitButton;
}

/** The ways to sign in a page offers: its links, and its forms' buttons. */
export const waysOf = (forms: readonly HtmlForm[], html: string): SignInWay[] => [
  ...parseLinks(html),
  ...forms.flatMap((form) => form.buttons.map((button) => ({ href: form.action, label: button.label, form, button }))),
];

/** Is `label` a way to sign in ("Continue with Google"), never a mere step on the way? */
export const isSignInWay = (label: string) => SIGN_IN_WAY.test(label);

/**
 * A page before the sign-in that offers ways to sign in (Dex's connectors, a broker's "Continue
 * with Google"), a link or a form's button each, and no sign-in form of its own: the way to
 * follow, undefined when the page offers none. The configured sign-in (driver.signInPath: where
 * the configured user's way starts, `/dex/auth/local`) on the provider's origin is followed, and
 * a lone way there (its redirect says where it goes on). Ways that all leave the target's origins
 * are the sign-in going on where nothing may be sent: said once, naming the origin. A choice with
 * none the config names is a missing premise said once, no way guessed.
 */
export function wayToSignIn(
  http: Http,
  offered: readonly SignInWay[],
  pageUrl: string,
  signInPath: string,
): SignInWay | undefined {
  const ways = offered.filter((l) => isSignInWay(l.label) && URL.canParse(l.href, pageUrl));
  if (!ways.length) return undefined;
  const onOrigin = ways
    .filter((l) => !http.leaves(new URL(l.href, pageUrl).href))
    .map((l) => ({ way: l, path: new URL(l.href, pageUrl).pathname }));
  const own = onOrigin.find((l) => samePath(l.path, signInPath));
  if (own) return own.way;
  if (!onOrigin.length) {
    const away = new URL(ways[0].href, pageUrl);
    signInElsewhere(http, away, http.leaves(away.href) ?? 'leaves the target');
  }
  if (ways.length === 1) return ways[0];
  beforeSignIn(http);
  refusals.set(
    http,
    'the provider asked which way to sign in earlier in this run and driver.signInPath leads to none of its ways; no way is guessed',
  );
  const said = ways.slice(0, WAYS_SAID).map((l) => l.label.slice(0, WAY_LABEL));
  const paths = [...new Set(onOrigin.map((l) => l.path.slice(0, WAY_LABEL)))].slice(0, WAYS_SAID);
  throw new SignInRefused(
    `the provider asks which way to sign in (${said.join('; ')}) and driver.signInPath (${signInPath}) leads to none of them: set it to the path where the configured user's way starts${paths.length ? ` (one of ${paths.join(', ')})` : ''}; what needs a signed-in user is not tested`,
  );
}

/**
 * May a visit follow an interstitial's continuation? Not a denial once the user code went out, in a
 * form or in the device page's URL (verification_uri_complete's user_code): the one link of a page of
 * links only may be the approval in effect (a device confirmation's "Continue").
 */
export const mayContinue = (decision: 'approve' | 'deny', codeSent: boolean) => decision === 'approve' || !codeSent;

/** A word without the stops after it ("read_user." ends a sentence; `repo:status` keeps its colon). */
function unstopped(word: string): string {
  let end = word.length;
  while (end > 0 && '.:!?'.includes(word[end - 1])) end--;
  return word.slice(0, end);
}

/** The words of a page's text, as a consent shows a scope or a client id among them ("read_user,"). */
const wordsOf = (text: string) =>
  new Set(
    text
      .split(/[\s,;()[\]{}"'“”‘’<>]+/)
      .map(unstopped)
      .filter(Boolean),
  );

/**
 * Asked to deny the authorization `authorizeUrl`, does a page of links only read as its consent, whose
 * one link ("Continue", the consent implicit in the text) would approve on the configured user's real
 * account? It does when its text names the client (its client_id) or a scope the authorization asks
 * for, or asks in a consent's words (CONSENT_PHRASES: "would like to access your account"), or a
 * link leads to a redirect URI (the request's, `redirectUris`): handing over is the
 * decision's. What it names, for the sentence; undefined for an interstitial ("Welcome back", whose
 * link resumes the authorization: that alone says nothing, every interstitial's does). The text
 * read includes `<noscript>`'s, what a client running no script (the form driver) is shown.
 * `terms`: the reading that tells terms of use from a consent (an agreement step's), where a scope
 * of letters alone ('read', 'api') is also a word of prose ("Please read and accept the terms"):
 * one such scope names nothing, two or more do. Every other reading (a step's gate) counts it: a
 * denial left untested is the safe side.
 */
export function namesTheGrant(
  html: string,
  pageUrl: string,
  authorizeUrl: string,
  redirectUris: readonly string[],
  { terms = false } = {},
): string | undefined {
  if (!URL.canParse(authorizeUrl)) return undefined;
  const asked = new URL(authorizeUrl).searchParams;
  const words = wordsOf(pageText(html, { noscript: true }));
  const client = asked.get('client_id');
  if (client && words.has(client)) return `names the client ${client.slice(0, WAY_LABEL)}`;
  const scopes = (asked.get('scope') ?? '').split(' ').filter((s) => s && words.has(s));
  const prose = scopes.filter((s) => /^\p{L}+$/u.test(s));
  const scope = terms && prose.length < 2 ? scopes.find((s) => !prose.includes(s)) : scopes[0];
  if (scope !== undefined) return `names the scope ${scope.slice(0, WAY_LABEL)} it asks for`;
  const asks = CONSENT.exec(pageText(html, { shown: true, noscript: true }).slice(0, 20_000));
  if (asks) return `asks for consent (“${asks[0].slice(0, WAY_LABEL)}”)`;
  const uris = [...redirectUris, ...(asked.get('redirect_uri') ? [asked.get('redirect_uri')!] : [])];
  const handing = parseLinks(html).some(
    (l) => URL.canParse(l.href, pageUrl) && uris.some((u) => handsOverTo(new URL(l.href, pageUrl).href, u)),
  );
  return handing ? "has a link to the application's redirect URI" : undefined;
}

/**
 * Asked to deny the authorization `authorizeUrl`, why following `link` on a page of links only (the
 * page at `pageUrl`, its HTML `html`) may be the approval, or undefined when it cannot: the page
 * names the grant (namesTheGrant); the link's own words approve ("Accept and continue", a step's
 * word beside an approval's); or, the page asking nothing (no link decides), the step leads
 * anywhere but back to the authorization endpoint (its origin and path): a consent written for
 * people ("Sample App would like to see your name… Continue") names neither the client_id nor a
 * scope, and its one link, to the consent's own handler, is the approval in effect. An
 * interstitial's link resumes the authorization ("Welcome back": /oauth/authorize?…); a question's
 * answer (answerOf: "No", "Skip for now") approves nothing. A link with no address of its own (no
 * href, `#`, javascript:: a script's) may go anywhere. A step that leaves this reading errs the
 * check unfollowed: a denial untested, never a grant made on the configured user's account.
 */
export function denyMayGrant(
  html: string,
  pageUrl: string,
  authorizeUrl: string,
  redirectUris: readonly string[],
  link: { href: string; label: string },
): string | undefined {
  const named = namesTheGrant(html, pageUrl, authorizeUrl, redirectUris);
  if (named !== undefined) return named;
  const label = link.label.replace(/\s+/g, ' ').trim().slice(0, WAY_LABEL);
  if (APPROVES.test(link.label)) return `says “${label}”, which approves`;
  // No href, a fragment alone (which resolve to the page itself) or javascript: leaves where the
  // link goes to a script, which may post the approval.
  if (/^\s*(?:#|javascript:|$)/i.test(link.href))
    return `has one link, “${label}”, whose destination a script decides (no address of its own)`;
  if (parseLinks(html).some(decides)) return undefined;
  const to = URL.canParse(link.href, pageUrl) ? new URL(link.href, pageUrl) : undefined;
  const start = URL.canParse(authorizeUrl) ? new URL(authorizeUrl) : undefined;
  if (to && start && to.origin === start.origin && samePath(to.pathname, start.pathname)) return undefined;
  return `has one link, “${label}”, to ${to ? to.pathname.slice(0, WAY_LABEL) : 'an address it cannot read'}, not back to the authorization`;
}

/**
 * The deny visit stops before a page namesTheGrant reads as the consent (`named`): its link is the
 * approval in effect, never followed. The harness's limit, said as such; nothing was granted.
 */
export const consentOfLinks = (pageUrl: string, named: string) =>
  new HarnessError(
    `asked to deny, the page of links only at ${new URL(pageUrl).pathname.slice(0, WAY_LABEL)} ${named}: it reads as the consent itself, its one link the approval in effect; its one link was not followed (it would grant the application on the configured user's account), so the denial is not tested`,
  );

/**
 * Asked to deny, why a step taken on a page (a link or a button that goes on: Continue, Next, Submit)
 * may be the approval in effect, undefined when it cannot be: the user code
 * went out (`codeOut`: in a form, or in the device page's URL), so what follows is the device's
 * confirmation (Microsoft's "Are you trying to sign in…? Continue"); or the page reads as the
 * authorization's consent (namesTheGrant; `terms`: its reading of an agreement step). One reading
 * for links and buttons; the sign-in form and the device code's own entry form are the caller's to
 * let through (they grant nothing).
 */
export function stepMayApprove(
  page: { html: string; url: string },
  startUrl: string,
  redirectUris: readonly string[],
  codeOut: boolean,
  terms = false,
): string | undefined {
  if (codeOut) return 'the user code went out';
  return namesTheGrant(page.html, page.url, startUrl, redirectUris, { terms });
}

/**
 * The deny visit stops before a step stepMayApprove reads as the approval (`label`, the control's
 * words, the target's: cut; `why`, stepMayApprove's): nothing pressed, nothing granted. The harness's limit, said as such.
 */
export const noWayToDeny = (pageUrl: string, label: string, why: string) =>
  new HarnessError(
    `asked to deny, the page at ${new URL(pageUrl).pathname.slice(0, WAY_LABEL)} offers no way to deny: its only control goes on (${label.replace(/\s+/g, ' ').trim().slice(0, WAY_LABEL)}), which may be the approval (${why}); nothing was pressed, so the denial is not tested`,
  );

/**
 * A denial that followed a continuation and was handed over with a code or a token (`to`, its query
 * or its fragment: redirectParams), nothing decided: the link approved in effect, a grant made on
 * the configured user's account (no code is exchanged, so nothing can be revoked). The harness's own
 * trouble, said as the hazard it is, never the provider's consent-denied verdict: the denial was not made.
 */
export function continuationGranted(decision: 'approve' | 'deny', decided: boolean, followed: boolean, to: URL): void {
  if (decision === 'deny' && !decided && followed && granted(to))
    throw new HarnessError(
      `asked to deny, the driver followed the one link of a page of links only, and the provider handed over a code to ${to.origin}${to.pathname}: that link approved, so the denial is not tested; the application may hold a grant on the configured user's account (nothing was exchanged): revoke it in the provider`,
    );
}

/** The page at `pageUrl` named in a sentence: its title, its path and some of `labels` (bounded: the page is the target's). */
function pageSaid(html: string, pageUrl: string, labels: readonly string[]): string {
  const title = decodeEntities(TITLE.exec(html)?.[1] ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, WAY_LABEL);
  const said = labels.slice(0, WAYS_SAID).map((l) => l.replace(/\s+/g, ' ').trim().slice(0, WAY_LABEL));
  return `the page ${title ? `“${title}” ` : ''}at ${new URL(pageUrl).pathname.slice(0, WAY_LABEL)}${said.length ? ` (${said.join('; ')})` : ''}`;
}

/** The page that answered the configured user's password, as the driver saw it. */
export interface PasswordAnswer {
  html: string;
  url: string;
  status: number;
}

/**
 * The password answered by a page of links only that the driver cannot read (`answer`): nothing
 * pressed on a page whose links approve (decidedByLinks: a consent of links, or a refusal whose
 * links say approving words), or the link `followed` from it leading to neither a decision nor the
 * application (a refusal's "OK" to the home page, as well as an interstitial's). Never counted as
 * a sign-in (a device page would then read as approved by the user); said once for the run,
 * naming the page and its links, and the password is not sent again (a live account locks).
 */
export function answeredByLinks(http: Http, answer: PasswordAnswer, followed?: string, metAgain = false): never {
  refusals.set(
    http,
    "the provider answered the configured user's password with a page of links only earlier in this run; the password is not sent again",
  );
  const labels = parseLinks(answer.html)
    .map((l) => l.label)
    .filter((l) => l.trim());
  throw new SignInRefused(
    `the provider answered the configured user's password (status ${answer.status}) with a page of links only, ${pageSaid(answer.html, answer.url, labels)}, ${
      followed === undefined
        ? 'on which the driver presses nothing'
        : `and the link “${followed.replace(/\s+/g, ' ').trim().slice(0, WAY_LABEL)}” followed from it led to neither a decision nor the application${metAgain ? ', and a later visit met the sign-in form again' : ''}`
    }: it may be a refusal (check user.username and user.password in the target config) or a page only a person can go on from (driver: manual); the password is not sent again, and what needs a signed-in user is not tested`,
  );
}

/**
 * The password's answer, a page of links only, and the link followed from it, in a visit that ended
 * with neither a decision nor the hand-over, as the answer to a request the provider may refuse or
 * a check malformed, a device page's answer to the user code, or a page the form driver cannot play:
 * that end is its check's alone, and whether the password went through is unsettled. The driver
 * keeps it for its later visits: a decision or the hand-over with no sign-in form met counts the
 * session; the sign-in form met again is the password's answer said once (signInMetAgain).
 */
export interface Unsettled {
  answer: PasswordAnswer;
  followed: string;
}

/** A later visit met the sign-in (or username) form while the password's answer is `unsettled`: said once, nothing sent. */
export function signInMetAgain(http: Http, unsettled: Unsettled | undefined): void {
  if (unsettled === undefined) return;
  beforeSignIn(http);
  answeredByLinks(http, unsettled.answer, unsettled.followed, true);
}

/**
 * A device visit whose page took the user code after the link followed from the password's
 * answer (`unsettled`), nothing decided: the connection is not counted as the user's while the
 * sign-in is unsettled (a refusal's "OK" may lead to a page that connects on the code alone). The
 * check's own trouble; a later visit settles the sign-in.
 */
const deviceUnsettled = (unsettled: Unsettled) =>
  new HarnessError(
    `the device page took the user code after the link “${unsettled.followed.replace(/\s+/g, ' ').trim().slice(0, WAY_LABEL)}” followed from the page of links only that answered the configured user's password: whether the sign-in went through is not known yet (a later visit with a decision settles it), so the device's connection is not counted as the user's approval`,
  );

/**
 * A visit ends past the password's `unsettled` answer (none: nothing to settle): a decision or the
 * hand-over (`settles`) counts the sign-in (false); an end that is the check's alone (`own`: the
 * answer to a request the provider may refuse or a check malformed, a page the form driver cannot
 * play) keeps it unsettled for a later visit (true), as does the device page's answer to the code,
 * said as that check's trouble; any other end is that page said once (answeredByLinks). One rule
 * for both drivers.
 */
export function stillUnsettled(
  http: Http,
  unsettled: Unsettled | undefined,
  end: { settles: boolean; own: boolean; codeSent: boolean },
): boolean {
  if (unsettled === undefined || end.settles) return false;
  if (end.own) return true;
  if (end.codeSent) throw deviceUnsettled(unsettled);
  answeredByLinks(http, unsettled.answer, unsettled.followed);
}

/**
 * A page of links that asks a question or puts something off and decides nothing ("Stay signed
 * in? Yes / No"; "Set up two-factor authentication / Skip for now"): the answer the decision leans
 * to (yes to approve, no to deny), else the link that puts off, as the form driver's buttonFor
 * presses such buttons. None on a page with a link that approves or denies (the decision's), nor
 * an answer that asks itself ("No account? Sign up").
 */
function answerOf(
  links: ReadonlyArray<{ href: string; label: string }>,
  pageUrl: string,
  signInPath: string,
  decision: 'approve' | 'deny',
) {
  if (links.some((l) => DECISION.test(l.label) && !ASIDE.test(l.label))) return undefined;
  const answers = links.filter((l) => !l.label.includes('?') && decisive(l, pageUrl, signInPath));
  return answers.find((l) => ANSWERS[decision].test(l.label)) ?? answers.find((l) => POSTPONES.test(l.label));
}

/**
 * Signed in (this visit's password, or an earlier one's session), before any decision, a page of
 * links only (no form, no control: the page at `pageUrl`, its HTML `html`): an interstitial
 * ("Welcome back": "Continue to app", "Use another account", a help link) whose one link that goes on (a step's words, CONTROL_WORDS; never one
 * that leaves the session or signs in another way) is followed, as a person would: that link. One
 * that leaves the target's origins is the sign-in going on elsewhere; several are a choice only a
 * person can make: each said once, naming the page, and what needs a signed-in user is untested.
 * A link back to the sign-in (`signInPath`) or to the page itself goes nowhere on: a refusal's
 * "OK" or "Try again" (following it would send the refused password again, on every check); nor
 * does one that is no http(s) link (`javascript:void(0)`, a script's). A page with a link that
 * decides, puts off or answers ("Accept and continue", "Remind me later", "Yes") is no
 * interstitial: given the visit's `decision`, a question's answer or the link that puts off is
 * followed (answerOf), never a link that approves or denies (the decision's, not a step's).
 * None: undefined, and the page is judged as before (a refusal, or no control for the decision).
 */
export function continuation(
  http: Http,
  html: string,
  pageUrl: string,
  signInPath: string,
  decision?: 'approve' | 'deny',
): SignInWay | undefined {
  const links = parseLinks(html);
  const answer = decision && links.some(decides) ? answerOf(links, pageUrl, signInPath, decision) : undefined;
  const onward = links.some(decides)
    ? answer
      ? [answer]
      : []
    : links.filter(
        (l) =>
          GOES_ON.test(l.label) && !AWAY.test(l.label) && !isSignInWay(l.label) && leadsOn(l.href, pageUrl, signInPath),
      );
  if (!onward.length) return undefined;
  if (onward.length === 1) {
    const to = new URL(onward[0].href, pageUrl);
    const away = http.leaves(to.href);
    if (away !== undefined) signInElsewhere(http, to, away);
    return onward[0];
  }
  signInNeedsPerson(
    http,
    `a choice between links on ${pageSaid(
      html,
      pageUrl,
      onward.map((l) => l.label),
    )}`,
  );
}

const IDENTIFIER_NAME = new RegExp(IDENTIFIER_WORDS.join('|'), 'i');

/**
 * The field of `form` that asks for the username, when the form asks for it without a password
 * (identifier-first sign-in: the password comes on the next page): the configured `loginField`, an
 * email field, or a text field named like one (IDENTIFIER_WORDS).
 */
export function identifierField(form: HtmlForm, loginField: string): FormField | undefined {
  if (form.fields.some((f) => f.type === 'password')) return undefined;
  return (
    form.fields.find((f) => f.name === loginField && f.type !== 'hidden') ??
    form.fields.find((f) => f.type === 'email' || (f.type === 'text' && IDENTIFIER_NAME.test(f.name)))
  );
}
