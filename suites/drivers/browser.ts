/** A page answer's headers as Headers (rate.ts and unserved.ts read those). */
function headersOf(answer: PwResponse): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers()))
    try {
      headers.set(name, value);
    } catch {
      /* a value Headers cannot hold (set-cookie lines joined by a newline): no marker is one */
    }
  return headers;
}

/** Did the target decline to serve this page now (rate.ts isRateLimited: a 429, a 503 with Retry-After)? */
const refusedNow = (answer: PwResponse | undefined): answer is PwResponse =>
  !!answer && isRateLimited(answer.status(), headersOf(answer));

/**
 * How long to wait before loading a page again that the target declined to serve now (refusedNow):
 * what the HTTP target does with its own requests, for the pages the browser loads itself (GET
 * only: a form posted is not sent twice, so one refused is given up at once). Undefined for any
 * other answer; after `attempt` retries, or a wait past the harness's, the visit is given up with
 * the HTTP target's line (rate.ts givenUp), its check errored, no rule judged.
 */
function throttledFor(
  answer: PwResponse | undefined,
  attempt: number,
  waited: number,
  leftMs: number,
): number | undefined {
  if (!refusedNow(answer)) return undefined;
  const headers = headersOf(answer);
  // As the HTTP target's: a wait counts against the check's time limit (never moves it on), and one
  // ending past it or --deadline is given up at once, since the sleep cannot be cut short.
  const maxWait = waitWithin(DEFAULT_MAX_RETRY_AFTER, leftMs);
  const { asked, wait } = retryWait(headers, attempt, maxWait);
  const get = answer.request().method() === 'GET';
  if (get && attempt < DEFAULT_RETRIES_429 && wait <= maxWait) return wait;
  const where = `${answer.request().method()} ${new URL(answer.url()).pathname.slice(0, 200)}`;
  const refusal = givenUp(where, answer.status(), { attempt, waited, wait, maxWait, asked });
  // The session's target never saw this page: the session counts it toward its refusals in a row.
  throw new RateLimited(refusal.message, refusal.status, refusal);
}

/**
 * A bot wall or a gateway's page answering the sign-in is no refusal of the configured user's: said
 * as what it is, and the next check may sign in again. Its headers and status only (target/unserved.ts):
 * the page's body stays in the browser.
 */
function standingIn(answer: PwResponse): void {
  const unserved = unservedOf(answer.status(), headersOf(answer), () => '');
  if (!unserved) return;
  const what = `${answer.request().method()} ${new URL(answer.url()).pathname.slice(0, 200)}: ${answer.status()}`;
  throw new HarnessError(
    unserved.kind === 'wall'
      ? `the target's bot protection answered the sign-in instead of the provider (${what}, ${unserved.what}), so nothing was seen`
      : `a gateway answered the sign-in instead of the provider (${what}, a gateway error), so nothing was seen; run again once it is served`,
  );
}

/**
 * The `browser` driver: plays the user in a real Chromium (Debian's, never a downloaded one)
 * through playwright-core, for providers whose sign-in or consent needs JavaScript. It signs in
 * when the sign-in form appears, clicks the approve or deny button, then a "continue" control if
 * one leads on, and captures the redirect to the application without loading it: requests that
 * leave the provider are aborted, their URL kept. A sign-in application (credentials and consent
 * posted by fetch, no page load after them) is played too: after each action the driver waits for
 * what matters (the hand-over, a navigation or URL change, the next step's control, the acted-on
 * control going away), or for the page to fall quiet.
 *
 * playwright-core is an optional dependency, imported only when this driver is chosen; a missing
 * package or browser is a usage error (one line, exit 2), not a crash of the run.
 */
import { accessSync, constants } from 'node:fs';
import type {
  Browser,
  BrowserContext,
  Locator,
  CDPSession,
  Page,
  Request as PwRequest,
  Response as PwResponse,
} from 'playwright-core';
import type { AuthorizeOptions, CheckTime, Driver, Http, HttpResponse, TargetConfig } from '../types.js';
import { ConfigError, DriverError } from '../errors.js';
import {
  accountSelector,
  AGREEMENT_BOXES,
  controlPattern,
  DECISION_SELECTORS,
  IDENTIFIER_WORDS,
  notSaying,
  PICKER_PATTERN,
  roleSelector,
  SCOPE_BOX_NAME,
  SIGN_IN_DEFAULTS,
  STEP_SELECTORS,
} from './defaults.js';
import { EMBEDDED_BASE_URL } from '../target/embedded.js';
import {
  keepsRequest,
  MAX_STEPS,
  pageText,
  parseForms,
  refreshedRoundAndRound,
  refreshesItself,
  refreshOf,
} from './html.js';
import { CheckFailure, CheckSkipped, HarnessError, RateLimited, UnansweredPage } from '../runner/errors.js';
import { MAX_JSON_DEPTH, tooDeep } from '../report/json-depth.js';
import { devicePageUrl } from './form.js';
import { expectDeviceDecided, type Journey } from './device-outcome.js';
import { createSimulatorDriver } from './simulator.js';
import { openFence, WEBRTC_ARG, withoutPeerConnections, type Fence } from './fence.js';
import { lastChromiumError, launchChromium } from './sandbox.js';
import { allowedOrigins } from '../target/origin.js';
import { DEFAULT_MAX_BODY_BYTES } from '../target/http.js';
import { handsOverTo, handsOverToAny, redirectUrisOf } from './hand-over.js';
import { awaitsEmail, NEEDS_PERSON_SELECTORS, NEW_PASSWORD_CSS, NEW_PASSWORD_FIELDS } from './needs-person.js';
import {
  accountNotListed,
  consentOfLinks,
  answeredByLinks,
  continuation,
  continuationGranted,
  decidedByLinks,
  mayContinue,
  goingOnElsewhere,
  denyMayGrant,
  namesTheGrant,
  noWayToDeny,
  stepMayApprove,
  refusedIfClientError,
  signInNeedsPerson,
  signInRefused,
  signInStopped,
  signInUnplayable,
  beforeSignIn,
  samePath,
  signedInOnce,
  consentMet,
  consentShown,
  signInUser,
  wayToSignIn,
  waysOf,
  signInMetAgain,
  stillUnsettled,
  type PasswordAnswer,
  type SignInWay,
  type Unsettled,
} from './sign-in.js';
import { unservedOf } from '../target/unserved.js';
import {
  DEFAULT_MAX_RETRY_AFTER,
  DEFAULT_RETRIES_429,
  givenUp,
  isRateLimited,
  REAL_CLOCK,
  retryWait,
  waitWithin,
} from '../target/rate.js';

/** The device page's user code field. */
const USER_CODE_FIELDS = ['input[name*="user_code" i]', 'input[name*="usercode" i]'];
const USER_CODE_FIELD = USER_CODE_FIELDS.join(', ');
/**
 * The submit buttons of a form that holds the code field, pressed as a step: never one saying deny,
 * nor anything aside or away. Asked to deny, never in a form that offers the approval ("Allow"
 * beside the code, Cancel a link): that press is the approval (the form driver refuses it too).
 */
const userCodeSubmit = (decision: Decision) =>
  USER_CODE_FIELDS.flatMap((field) =>
    ['button[type="submit"]', 'button:not([type])', 'input[type="submit"]'].map(
      (b) =>
        `form:has(${field})${decision === 'deny' ? `:not(:has(${roleSelector('approve', 'deny')}))` : ''} ${b}${notSaying('deny')}${notSaying('aside')}${notSaying('away')}`,
    ),
  ).join(', ');
const USER_CODE_SUBMIT = { approve: userCodeSubmit('approve'), deny: userCodeSubmit('deny') };

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
/** Quiet, offline, throwaway: no GPU, nothing fetched in the background (the sandbox: sandbox.ts). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  WEBRTC_ARG,
];
/** How long one page may take to answer a navigation or show a control. */
const PAGE_TIMEOUT_MS = 30_000;
/**
 * The time a stalled visit keeps before its check's limit, to close the page and say why (at most a
 * quarter of the time left): a watchdog at the check's own limit lost to it, and the page's hang
 * was said as the target's silence.
 */
const WATCHDOG_MARGIN_MS = 5_000;
/** A page with scripts may draw its form after `load`: how long to wait for a control to show. */
const SCRIPT_RENDER_MS = 2_000;
/** No request open or ended for this long: the page's script has done what one action started. */
const QUIET_MS = 750;
const POLL_MS = 100;
/** How often a visit asks Chromium's own process (not a page's renderer) whether it still answers. */
const PING_MS = 500;
/** A ping unanswered this long: Chromium is frozen (stopped, starved), not busy. */
const FROZEN_AFTER_MS = 10_000;
/** "Continue" controls pressed in one visit before we call it a loop. */
const MAX_CONTINUES = 3;
const PICKER = new RegExp(PICKER_PATTERN, 'i');
/** Playwright's message for an action that failed (`locator.check: Clicking the checkbox did not change its state`). */
const PLAYWRIGHT_ACTION = /^(?:locator|page|frame|elementHandle)\.(\w+): /;
/** The provider's page would not be played (a hang, an action it made fail): said as the page's, where it happened. */
class PageProblem extends HarnessError {}
/** The provider's page did not respond for `ms` (a script that never yields, a control never usable). */
class PageUnresponsive extends PageProblem {
  constructor(
    message: string,
    readonly ms: number,
  ) {
    super(message);
  }
}
/** What the driver was doing, by the Playwright action a page made fail. */
const ACTIONS: Record<string, string> = {
  check: 'tick a box',
  fill: 'type into a field',
  click: 'press a control',
  press: 'press a key in a field',
};
/** A control's words that grant access (defaults.ts, GRANT_WORDS). */
const GRANTS = new RegExp(controlPattern('grant'), 'i');

/**
 * The first element of `css` a person sees: a page may draw a control twice, the copy for another
 * screen size hidden by CSS (Amazon Cognito's classic sign-in page has its form twice, the hidden
 * one first), and only the one shown can be filled or pressed.
 */
const shown = (root: Page | Locator, css: string) => root.locator(css).filter({ visible: true }).first();
/** How many elements of `css` a person sees. */
/** A link's target and words as the page gives them (the target's: read with the usual bounds, cut later). */
async function linkOf(link: Locator): Promise<{ href: string; label: string }> {
  const [href, label] = await Promise.all([
    link.getAttribute('href', { timeout: 1000 }).catch(() => null),
    link.innerText({ timeout: 1000 }).catch(() => ''),
  ]);
  return { href: href ?? '', label: label.slice(0, 1000) };
}
const shownCount = (page: Page, css: string) => page.locator(css).filter({ visible: true }).count();

/**
 * A control disabled until the page is read (a consent's Authorize, enabled by its script once the
 * terms' box is scrolled to the end): every scrolling box and the page are scrolled to their end,
 * as a person reading does, and the control given SCRIPT_RENDER_MS to be enabled. Still disabled,
 * nothing is pressed: the page is beyond the driver, said as such (before, the click waited out the
 * page's 30 s and the check erred "the provider's page did not respond").
 */
async function readToEnable(page: Page, control: Locator): Promise<void> {
  if (await control.isEnabled({ timeout: POLL_MS }).catch(() => true)) return;
  // The page's own script runs it, with no timeout of playwright's: one that spins (an overridden
  // querySelectorAll) is given SCRIPT_RENDER_MS, then the control is read as it stands.
  const reading = page
    .evaluate(() => {
      for (const box of document.querySelectorAll('*'))
        if (box.scrollHeight > box.clientHeight) box.scrollTop = box.scrollHeight;
      window.scrollTo(0, document.documentElement.scrollHeight);
    })
    .catch(() => undefined);
  await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, SCRIPT_RENDER_MS).unref())]);
  // A trial click waits for the control to be enabled and clicks nothing.
  const enabled = await control.click({ trial: true, timeout: SCRIPT_RENDER_MS }).then(
    () => true,
    () => false,
  );
  if (!enabled)
    throw new HarnessError(
      `the provider's page at ${new URL(page.url()).pathname} keeps the control to press disabled, its terms read to the end; nothing was pressed`,
    );
}

type Decision = 'approve' | 'deny';

/** A consent page's scope checkboxes not ticked, that an approval ticks. */
const UNTICKED_SCOPE_BOXES = `input[type="checkbox"][name*="${SCOPE_BOX_NAME}" i]:not(:checked):not([disabled])`;
/** What goes on from a page once its boxes are ticked (terms of use): accept, continue, yes. */
const AGREE = [roleSelector('approve', 'deny'), roleSelector('step', 'deny'), roleSelector('yes')].join(', ');
/** What Enter in a form presses: its default button (a `<button>` is one unless typed otherwise). */
const SUBMIT_BUTTONS = 'button:not([type]), button[type="submit" i], input[type="submit" i], input[type="image" i]';
/** Anything a person could act on: a page with none, in answer to the password, refused it. */
const ANY_CONTROL = 'form, button, input:not([type="hidden" i]), select, textarea, [role="button"]';

export interface BrowserDriverOptions {
  /** Chromium binary; default $IDP_CHROMIUM, else /usr/bin/chromium. */
  executablePath?: string;
  /** Does the target answer the simulator control API (then the clock can be moved)? */
  hasControl?: boolean;
  /** How long a page may take to answer an action (default 30 s; tests shorten it). */
  pageTimeoutMs?: number;
  /** How long Chromium's own process may leave a ping unanswered before it is taken as frozen (default 10 s). */
  frozenAfterMs?: number;
  /**
   * How long a page load's answer is waited for: the HTTP target's per-request timeout (--timeout).
   * Undefined: only the page's own limit bounds it.
   */
  answerTimeoutMs?: number;
}

export interface BrowserDriver extends Driver {
  close(): Promise<void>;
}

// One Chromium per process, shared by every driver that is open (a test file and the runs it
// starts reuse one launch); each driver gets its own context, so cookies never cross drivers.
interface Shared {
  browser: Promise<Browser>;
  users: number;
}
let shared: Shared | undefined;
/** Open holds (holdBrowser): while there is one, the last driver to close leaves Chromium running. */
let holds = 0;

function chromiumPath(options: BrowserDriverOptions): string {
  const path = options.executablePath ?? process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new DriverError(`driver "browser" needs Chromium at ${path} (apt-get install chromium, or set IDP_CHROMIUM)`);
  }
  return path;
}

/** The process id of each Chromium launched here, to end one that stops answering (a driver's `freeze`). */
const pids = new WeakMap<Browser, number>();

/** Chromium's own process id, asked once at launch (undefined where its DevTools do not say). */
async function rememberPid(browser: Browser): Promise<void> {
  const session = await browser.newBrowserCDPSession();
  const info = await session.send('SystemInfo.getProcessInfo').catch(() => undefined);
  const pid = info?.processInfo.find((p) => p.type === 'browser')?.id;
  if (pid !== undefined) pids.set(browser, pid);
  await session.detach().catch(() => undefined);
}

async function launch(executablePath: string): Promise<Browser> {
  let playwright: typeof import('playwright-core');
  try {
    playwright = await import('playwright-core');
  } catch {
    throw new DriverError('driver "browser" needs the optional package playwright-core (npm install playwright-core)');
  }
  try {
    // launch() gives each browser a fresh temporary profile (user-data-dir) and deletes it on close.
    // SIGINT and SIGTERM stay ours: the first lets the running check finish, so the browser must
    // outlive it (playwright still kills it when the process exits).
    const start = (chromiumSandbox: boolean) =>
      playwright.chromium.launch({
        executablePath,
        args: CHROMIUM_ARGS,
        chromiumSandbox,
        handleSIGINT: false,
        handleSIGTERM: false,
        timeout: PAGE_TIMEOUT_MS,
      });
    const browser = await launchChromium(start, { warn: (line) => process.stderr.write(`${line}\n`) });
    await rememberPid(browser).catch(() => undefined);
    return browser;
  } catch (error) {
    // Playwright's first line is often only "browser has been closed": Chromium's own says why.
    const message = String((error as Error)?.message ?? error);
    const chromium = lastChromiumError(message);
    throw new DriverError(
      `driver "browser" could not start Chromium at ${executablePath}: ${message.split('\n')[0]}${chromium ? ` (Chromium: ${chromium})` : ''}`,
    );
  }
}

function acquireBrowser(executablePath: string): Shared {
  if (!shared) {
    const entry = { browser: launch(executablePath), users: 0 };
    shared = entry;
    // A browser that failed to start, crashed or was closed is not handed to the next driver.
    const forget = () => {
      if (shared === entry) shared = undefined;
    };
    entry.browser.then((browser) => browser.on('disconnected', forget), forget);
  }
  shared.users++;
  return shared;
}

async function closeUnused(): Promise<void> {
  if (!shared || shared.users > 0 || holds > 0) return;
  const { browser } = shared;
  shared = undefined;
  await (await browser.catch(() => undefined))?.close().catch(() => undefined);
}

/** A driver is done with `entry`; one that crashed meanwhile is no longer shared, nothing to close. */
async function releaseBrowser(entry: Shared): Promise<void> {
  entry.users--;
  if (entry === shared) await closeUnused();
}

/**
 * The drivers' shared Chromium, for a caller with pages of its own (a test of the HTML report):
 * its contexts are its own to close, then `release`.
 */
export async function borrowBrowser(
  options: Pick<BrowserDriverOptions, 'executablePath'> = {},
): Promise<{ browser: Browser; release: () => Promise<void> }> {
  const entry = acquireBrowser(chromiumPath(options));
  const browser = await entry.browser.catch(async (error: unknown) => {
    await releaseBrowser(entry);
    throw error;
  });
  let released = false;
  return {
    browser,
    release: async () => {
      if (released) return;
      released = true;
      await releaseBrowser(entry);
    },
  };
}

/**
 * Keeps Chromium open between drivers until the returned release: a caller that opens drivers one
 * after another (a test worker, a library caller running sessions in a loop) pays one launch, not
 * one per run. Nothing is launched until a driver needs it; each driver still has its own context.
 */
export function holdBrowser(): () => Promise<void> {
  holds++;
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    holds--;
    await closeUnused();
  };
}

const cssString = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** Where a way is pressed: its link, or its button in the form that goes where it says. */
const wayCss = (way: SignInWay): string => {
  if (!way.form) return `a[href=${cssString(way.href)}]`;
  const form = way.form.action ? `form[action=${cssString(way.form.action)}]` : 'form:not([action])';
  return `${form} :is(button:has-text(${cssString(way.label)}), input[type="submit" i][value=${cssString(way.label)}])`;
};

/** Headers from name/value pairs; Playwright joins repeated ones (Set-Cookie) with newlines. */
function toHeaders(pairs: Iterable<[string, string]>): Headers {
  const headers = new Headers();
  for (const [name, value] of pairs) {
    try {
      for (const line of value.split('\n')) headers.append(name, line);
    } catch {
      // A header Chromium passes on but Fetch's Headers refuses: not something a check reads.
    }
  }
  return headers;
}

function httpResponse(status: number, headers: Headers, text: string, url: string): HttpResponse {
  return {
    status,
    headers,
    text,
    url,
    json<T>(): T {
      if (tooDeep(text))
        throw new CheckFailure(
          `the page at ${new URL(url).pathname} answered ${status} with JSON nested deeper than ${MAX_JSON_DEPTH} levels, the most the harness reads`,
        );
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new CheckFailure(`the page at ${new URL(url).pathname} answered ${status} with a body that is not JSON`, {
          contentType: headers.get('content-type'),
        });
      }
    },
  };
}

/**
 * The most the harness reads of the page a visit ends on, as of any answer (--max-body's default).
 * Chromium holds the page; read whole, a 150 MB one came over as a 150 MB string (the body evicted
 * from Chromium's buffer, the DOM serialised instead).
 */
export const PAGE_TEXT_LIMIT = DEFAULT_MAX_BODY_BYTES;

/** page.content() (doctype and markup), or null, without sending it, when it is longer than PAGE_TEXT_LIMIT. */
const pageSource = (page: Page): Promise<string | null> =>
  page
    .evaluate((limit) => {
      const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
      const html = doctype + (document.documentElement?.outerHTML ?? '');
      return html.length > limit ? null : html;
    }, PAGE_TEXT_LIMIT)
    .catch(() => '');

async function fromPage(page: Page, last: PwResponse | undefined): Promise<HttpResponse> {
  const url = last?.url() ?? page.url();
  const tooLarge = () =>
    new CheckFailure(
      `the page at ${new URL(url).pathname} is larger than the ${PAGE_TEXT_LIMIT / 1024 / 1024} MiB the harness reads of an answer`,
    );
  if (!last) {
    const source = await pageSource(page);
    if (source === null) throw tooLarge();
    return httpResponse(0, new Headers(), source, url);
  }
  // Chromium knows the body's size: one past the limit is not asked for at all.
  const size =
    (
      await last
        .request()
        .sizes()
        .catch(() => undefined)
    )?.responseBodySize ?? 0;
  if (size > PAGE_TEXT_LIMIT) throw tooLarge();
  const text = await last.text().catch(() => pageSource(page));
  if (text === null || text.length > PAGE_TEXT_LIMIT) throw tooLarge();
  return httpResponse(last.status(), toHeaders(Object.entries(last.headers())), text, url);
}

const isMainNavigation = (page: Page, request: PwRequest) => {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false; // a service worker's request has no frame
  }
};

const headerOf = (headers: Array<{ name: string; value: string }> | undefined, name: string) =>
  headers?.find((h) => h.name.toLowerCase() === name)?.value;

/** The page's network and navigations, counted, so that waiting can tell "more is coming" from "done". */
interface Activity {
  open: number;
  last: number;
  navigations: number;
  /** Requests the page has sent, ever. */
  sent: number;
}

function watchActivity(page: Page): Activity {
  const activity: Activity = { open: 0, last: Date.now(), navigations: 0, sent: 0 };
  const touch = () => void (activity.last = Date.now());
  const ended = () => {
    activity.open = Math.max(0, activity.open - 1);
    touch();
  };
  page.on('request', () => {
    activity.open++;
    activity.sent++;
    touch();
  });
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  // framenavigated includes same-document changes (History API), which a sign-in application makes.
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) activity.navigations++;
    touch();
  });
  page.on('domcontentloaded', () => {
    activity.navigations++;
    touch();
  });
  return activity;
}

const quietFor = (activity: Activity, ms: number) => activity.open === 0 && Date.now() - activity.last >= ms;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Why a visit whose check ended stopped (no one reads it: the check has its result). */
const LEFT_BEHIND = 'the check ended before this page visit did: its page was closed';
/** Why a visit stopped when the run was interrupted while it waited out the target's rate limit. */
const INTERRUPTED_WAIT = "the run was interrupted while the browser waited out the target's rate limit";

interface Handover {
  url: URL;
  /** The provider's redirect; absent when the page itself navigated away (link, script). */
  response?: HttpResponse;
}

/** Where the page tried to take the browser off the provider (a form's action): nothing was sent. */
interface Stray {
  url: URL;
  why: string;
}

/** The one Accept-Encoding the browser sends: no content coding (withoutContentCodings). */
const IDENTITY_ONLY = { name: 'Accept-Encoding', value: 'identity' };

/**
 * The request's headers asking for no content coding. Chromium decodes whatever coding it asked
 * for without bound (a 4.6 MB gzip page made it hold 3.5 GB until the page timed out) and refuses
 * one it did not ask for (ERR_CONTENT_DECODING_FAILED) without decoding it: so the provider's
 * pages come as they are, as large as what was sent and no larger (the harness's own requests
 * decode within --max-body: target/content-coding.ts).
 */
function withoutContentCodings(headers: Record<string, string>): Array<{ name: string; value: string }> {
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'accept-encoding');
  return [...kept.map(([name, value]) => ({ name, value })), IDENTITY_ONLY];
}

/**
 * Nothing the page asks for leaves the provider: the hand-over to the application is stopped
 * before Chromium contacts it, its URL kept; a navigation elsewhere (a sign-in form posting to
 * another origin) is stopped and kept as a stray; any other request off the provider (a script's
 * fetch, an image) is failed. Playwright's page.route never sees redirect hops, so this asks
 * Chromium's Fetch domain directly: each request pauses before it is sent, and again when its
 * answer (a redirect too) arrives; whatever leaves is failed as aborted, the rest continues.
 */
async function guardRequests(
  context: BrowserContext,
  page: Page,
  handsOver: (url: string) => boolean,
  refused: (url: string) => string | undefined,
  stopAt: (url: string) => boolean = () => false,
  stopPage: (url: string, status: number) => boolean = () => false,
): Promise<{
  handover: () => Handover | undefined;
  stray: () => Stray | undefined;
  stopped: () => boolean;
  pageStopped: () => string | undefined;
}> {
  const cdp = await context.newCDPSession(page);
  const mainFrame = (await cdp.send('Page.getFrameTree')).frameTree.frame.id;
  let handover: Handover | undefined;
  let stray: Stray | undefined;
  let stopped = false;
  let pageStopped: string | undefined;
  cdp.on('Fetch.requestPaused', (event) => {
    const { requestId, request, responseStatusCode: status, responseHeaders } = event;
    const location =
      status !== undefined && status >= 300 && status < 400 ? headerOf(responseHeaders, 'location') : undefined;
    const to =
      status === undefined
        ? request.url
        : location && URL.canParse(location, request.url)
          ? new URL(location, request.url).href
          : undefined;
    const why = to === undefined ? undefined : refused(to);
    const main = event.frameId === mainFrame && event.resourceType === 'Document';
    // A page the visit must not show (stopPage): its answer arrived, and is failed before Chromium renders it.
    if (status !== undefined && location === undefined && main && stopPage(request.url, status)) {
      pageStopped = request.url;
      return void cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }).catch(() => undefined);
    }
    // A page the visit must not load (stopAt): never loaded, its request (or the redirect to it) failed.
    if (to !== undefined && main && stopAt(to)) stopped = true;
    if (to === undefined || (!handsOver(to) && why === undefined && !stopped))
      return void cdp
        .send('Fetch.continueRequest', {
          requestId,
          ...(status === undefined ? { headers: withoutContentCodings(request.headers) } : {}),
        })
        .catch(() => undefined);
    const fail = () => void cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }).catch(() => undefined);
    if (!main || stopped) return fail();
    // The page itself navigating elsewhere than to the application is no hand-over: a stray.
    if (status === undefined && !handsOver(to)) {
      stray ??= { url: new URL(to), why: why ?? 'leaves the provider' };
      return fail();
    }
    if (!handover) {
      const headers = toHeaders((responseHeaders ?? []).map((h) => [h.name, h.value]));
      handover = {
        url: new URL(to),
        ...(status !== undefined ? { response: httpResponse(status, headers, '', request.url) } : {}),
      };
    }
    fail();
  });
  const stages = ['Request', 'Response'] as const;
  await cdp.send('Fetch.enable', { patterns: stages.map((requestStage) => ({ urlPattern: '*', requestStage })) });
  return { handover: () => handover, stray: () => stray, stopped: () => stopped, pageStopped: () => pageStopped };
}

/**
 * An init script for every frame: window.open opens nothing and answers null, as a popup blocker
 * does. A page whose popups open popups kept a loaded machine's Chromium so busy opening and
 * closing them that the sign-in page's own submission was dropped (nothing sent in 30 s, a refused
 * sign-in taken for the provider's). What still opens a window (a link or form with a target)
 * meets closingPopups. Runs in the page: it must stand alone.
 */
export function withoutWindowOpen(): void {
  /** The first window asked for (windowOpened reads it): a sign-in sent there is no refused password. */
  let asked: string | undefined;
  const open = (url?: string | URL) => {
    try {
      asked ??= url === undefined || url === '' ? 'about:blank' : new URL(url, location.href).href;
    } catch {
      asked ??= 'about:blank';
    }
    return null;
  };
  Object.defineProperty(globalThis, 'open', { value: open, writable: false, configurable: false });
  Object.defineProperty(globalThis, Symbol.for('idp-conformance.window-open'), { get: () => asked });
}

/** The first window the page asked window.open for (withoutWindowOpen), if any. */
const windowOpened = (page: Page): Promise<string | undefined> =>
  page
    .evaluate(() => {
      const asked: unknown = (globalThis as Record<symbol, unknown>)[Symbol.for('idp-conformance.window-open')];
      return typeof asked === 'string' ? asked : undefined;
    })
    .catch(() => undefined);

/** How the driver opens its own pages, and the popups closed so far (the last one's URL as it appeared). */
interface Pages {
  open: () => Promise<Page>;
  popups: () => { count: number; last?: string };
}

/**
 * The driver plays the page it opened, never a popup: each window a page opens (window.open, a
 * link or form with a target) is closed as it appears, else a page whose popups open popups grows
 * the browser without bound (over a hundred windows in 1.5 s) until the machine runs out of
 * memory and the run ends with no verdict. Each is counted, the last one's URL kept: a sign-in
 * sent into a new window is said as that, never as the password refused.
 */
function closingPopups(context: BrowserContext): Pages {
  const opening = new Set<Promise<Page>>();
  const own = new WeakSet<Page>();
  const popups: { count: number; last?: string } = { count: 0 };
  // A popup's first request comes before its page (Playwright has no frame for it yet): kept, for a
  // popup whose page shows no URL of its own (its request failed, at the fence).
  let unframed: string | undefined;
  context.on('request', (request) => {
    if (!request.isNavigationRequest()) return;
    try {
      request.frame();
    } catch {
      unframed = request.url();
    }
  });
  // The 'page' event of our own newPage comes before newPage resolves: wait for those pending.
  context.on('page', (page) => {
    void Promise.allSettled([...opening])
      .then(() => {
        if (own.has(page)) return;
        popups.count++;
        popups.last = /^https?:/.test(page.url()) ? page.url() : (unframed ?? page.url());
        unframed = undefined;
        return page.close();
      })
      .catch(() => undefined);
  });
  const open = async () => {
    const opened = context.newPage();
    opening.add(opened);
    try {
      const page = await opened;
      own.add(page);
      return page;
    } finally {
      opening.delete(opened);
    }
  };
  return { open, popups: () => ({ ...popups }) };
}

export async function createBrowserDriver(
  http: Http,
  config: TargetConfig,
  options: BrowserDriverOptions = {},
): Promise<BrowserDriver> {
  if (http.baseUrl === EMBEDDED_BASE_URL) {
    throw new DriverError(
      'driver "browser" needs a target served over HTTP (give --config or --target; `idp-conformance simulate` serves the simulator)',
    );
  }
  const { browser, release } = await borrowBrowser(options);
  let context: BrowserContext;
  let fence: Fence | undefined;
  /** A session with Chromium's own process, to ping it, and that process's id, to end it when frozen. */
  let own: CDPSession;
  const pid = pids.get(browser);
  const frozenAfter = options.frozenAfterMs ?? FROZEN_AFTER_MS;
  /**
   * End Chromium by its process id, so that every call waiting on it fails now and nothing of it
   * outlives the run. The browser is shared by the run's drivers: a frozen one is frozen for all.
   */
  const end = () => {
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  // A Chromium that stopped answering (held open between runs, then stopped) would hold the set-up
  // below, and with it the run's start, for ever: past frozenAfter it is ended.
  let stopped = false;
  const setUpLimit = setTimeout(() => {
    stopped = true;
    end();
  }, frozenAfter);
  try {
    own = await browser.newBrowserCDPSession();
    // A service worker's requests would escape the page's request guard: none is allowed. What
    // else escapes it (sockets, workers, other processes' frames) meets the fence. A download is
    // cancelled as it begins: Playwright keeps every one on disk until the context closes, so a
    // page that starts an endless one would fill the disk while the check runs.
    fence = await openFence(allowedOrigins(http.baseUrl, config.trustedOrigins));
    // Every target of the context asks for no content coding from its first request on: a popup
    // is closed as it appears but its first request is already sent, outside guardRequests'
    // session, which sets the same header on the driver's own page (withoutContentCodings).
    context = await browser.newContext({
      serviceWorkers: 'block',
      proxy: fence.proxy,
      acceptDownloads: false,
      extraHTTPHeaders: { [IDENTITY_ONLY.name]: IDENTITY_ONLY.value },
    });
    await context.addInitScript(withoutPeerConnections);
    await context.addInitScript(withoutWindowOpen);
  } catch (error) {
    await fence?.close();
    await release();
    // A baseUrl or trusted origin the fence cannot hold to one host is the user's config to fix.
    if (error instanceof ConfigError) throw error;
    throw new DriverError(
      stopped
        ? `driver "browser": Chromium did not answer within ${frozenAfter / 1000} s (its process stopped or starved) and was ended`
        : `driver "browser" could not open a browser context: ${String((error as Error)?.message ?? error).split('\n')[0]}`,
    );
  } finally {
    clearTimeout(setUpLimit);
  }
  const pageTimeout = options.pageTimeoutMs ?? PAGE_TIMEOUT_MS;
  /** How long a page load's answer is waited for (--timeout): past it, the endpoint is silent. */
  const answerWithin = options.answerTimeoutMs;
  /** The running check's time (the session's), for the waits of a page the target declined to serve. */
  let checkTime: CheckTime | undefined;
  /** The visits under way, each ending itself, and the check's time each began under. */
  const visits = new Map<() => void, CheckTime | undefined>();
  context.setDefaultTimeout(pageTimeout);
  const pages = closingPopups(context);
  let closed = false;
  /**
   * Chromium's process ended under the run (the OOM killer, a crash): said by the check it ended
   * in, errored, once; every later visit is skipped at once as that premise, never a "crash of the
   * harness" per check. Asked, not listened for: a call may fail before the 'disconnected' event.
   */
  let goneSaid = false;
  /** Chromium left a ping unanswered for frozenAfter: it was ended (by its process id), not waited on. */
  let frozen = false;
  const gone = () => !closed && (frozen || !browser.isConnected());
  const browserGone = (): Error => {
    const why = frozen
      ? `Chromium stopped answering for ${frozenAfter / 1000} s under the run (its process stopped or starved) and was ended`
      : 'Chromium ended under the run (its process was killed, ran out of memory or crashed)';
    if (goneSaid) return new CheckSkipped(`${why}; an earlier check says so, and no page is played after it`);
    goneSaid = true;
    return new HarnessError(`${why}, so the provider's page was not played and nothing was seen`);
  };
  /** Chromium frozen under a visit (or the driver's close): ended. */
  const freeze = () => {
    frozen = true;
    end();
  };
  /**
   * While a visit runs, Chromium's own process is pinged (a renderer busy in a script does not
   * stop it answering): one unanswered for frozenAfter ends it. Before, a stopped Chromium held each
   * check to its time limit, blamed on the target ("did not answer"), and the run's close for ever.
   */
  const heartbeat = () => {
    let asked: number | undefined;
    let fail: (error: Error) => void = () => undefined;
    const frozenNow = new Promise<never>((_, reject) => (fail = reject));
    frozenNow.catch(() => undefined);
    const timer = setInterval(() => {
      if (asked !== undefined) {
        if (Date.now() - asked < frozenAfter || gone()) return;
        freeze();
        return fail(browserGone());
      }
      const sent = (asked = Date.now());
      own.send('Browser.getVersion').then(
        () => void (asked === sent && (asked = undefined)),
        () => undefined,
      );
    }, PING_MS);
    return { frozenNow, stop: () => clearInterval(timer) };
  };
  /**
   * The provider's page did not answer within `ms` of the driver's last step (a script that never
   * yields, a control never usable): each wait counts from the step it follows (the watchdog from the
   * step's start, Playwright's limit from its action), never from the visit's start, and says so.
   */
  const unresponsive = (page: Page, ms: number, detail?: string) =>
    new PageUnresponsive(
      `the provider's page did not respond within ${ms} ms of the driver's last step (at ${whereIs(page)}${detail ? `: ${detail}` : ''})`,
      ms,
    );
  /**
   * Each visit's main-frame navigation still waiting for its answer (sent, not answered): Chromium
   * shows the page before it meanwhile (the sign-in's, after the password was redirected to an
   * authorization endpoint that does not answer), so what hangs is that request's page (hform22).
   */
  const awaiting = new WeakMap<Page, PwRequest>();
  /** The path of the page that hangs or acts: the navigation awaiting its answer, else the page shown. */
  const whereIs = (page: Page) => new URL(awaiting.get(page)?.url() ?? page.url()).pathname;

  /**
   * What ended a visit, when it is the provider's page: the watchdog (`stalledMs`), Playwright's time
   * limit on an action, or an action the page made fail (a box whose click it cancels, a field it
   * swaps), said with where and Playwright's first line only (the rest repeats selectors). Before,
   * a failed action was "the check crashed (a defect of the harness)". Undefined for anything else.
   */
  const pageProblem = (page: Page, error: unknown, stalledMs?: number): PageProblem | undefined => {
    if (stalledMs !== undefined) return unresponsive(page, stalledMs);
    if (error instanceof PageProblem) return error;
    const first = String((error as Error)?.message ?? error).split('\n')[0];
    if ((error as Error)?.name === 'TimeoutError') return unresponsive(page, pageTimeout, first);
    const action = PLAYWRIGHT_ACTION.exec(first)?.[1];
    if (action === undefined || (error as Error)?.name !== 'Error') return undefined;
    const what = ACTIONS[action] ?? `act (${action})`;
    return new PageProblem(
      `the provider's page did not let the driver ${what} (at ${new URL(page.url()).pathname}: ${first})`,
    );
  };
  /**
   * The path of a sign-in page that could not be played (signInUnplayable): a later visit that
   * lands on it before any sign-in went through is skipped at once, never waited on again (a page
   * whose script never yields held each check to its limit: 44 checks, 44 minutes).
   */
  let unplayableAt: string | undefined;
  /**
   * The paths of the provider's other pages (a consent's, a device page's) that did not respond for
   * the page's whole limit, and what was said: a later visit answered there with a page is stopped
   * as the answer arrives and skipped, never waited on again (each check that met it waited ~55 s).
   * A redirect or an error status from that path goes on (an error redirect is no such page).
   */
  const hung = new Map<string, string>();
  const hungAt = (url: string) => [...hung.keys()].find((path) => samePath(new URL(url).pathname, path));

  const d = {
    signInPath: SIGN_IN_DEFAULTS.signInPath,
    loginField: SIGN_IN_DEFAULTS.loginField,
    passwordField: SIGN_IN_DEFAULTS.passwordField,
    approveSelector: DECISION_SELECTORS.approve,
    denySelector: DECISION_SELECTORS.deny,
    continueSelector: STEP_SELECTORS.continue,
    ...config.driver,
  };
  const selector = (decision: Decision) => (decision === 'approve' ? d.approveSelector : d.denySelector);
  const redirectUris = redirectUrisOf(config);
  /** Where the provider hands the user back to an application. */
  const handsOver = (url: string) => handsOverToAny(url, redirectUris);
  /**
   * A sign-in went through in this context in an earlier visit (its password not refused):
   * its session may live on for the visits after it. Not set when the password only went out: a
   * refusal (said once for the run) must not make a later journey read as signed in.
   */
  let session = false;
  /** The password's answer whose visit ended the check's alone (sign-in.ts, Unsettled): a later visit settles it. */
  let unsettled: Unsettled | undefined;
  const clock = options.hasControl ? createSimulatorDriver(http, config) : undefined;
  // A page asking for a new password twice stops before this (NEEDS_PERSON_SELECTORS); a lone
  // new-password field is the sign-in's, marked so against autofill (needs-person.ts).
  const passwordCss = [`input[name=${cssString(d.passwordField)}]`, 'input[type="password"]'].join(', ');
  /** A username field that stands alone (identifier-first sign-in), as the form driver finds one. */
  const identifierCss = [
    `input[name=${cssString(d.loginField)}]:not([type="hidden" i])`,
    'input[type="email" i]',
    ...IDENTIFIER_WORDS.flatMap((word) =>
      ['input[type="text" i]', 'input:not([type])'].map((input) => `${input}[name*="${word}" i]`),
    ),
  ].join(', ');

  /** Is a control there? An invalid selector in the config is the config's fault, said plainly. */
  async function present(page: Page, css: string, what: string): Promise<boolean> {
    try {
      const first = shown(page, css);
      return (await first.count()) > 0 && (await first.isVisible());
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      if (!/selector|unexpected token/i.test(message)) throw error;
      throw new HarnessError(`the ${what} "${css}" is not a valid selector: ${message.split('\n')[0]}`);
    }
  }

  /** A control a step looks for, and the config field that names it (for the invalid-selector message). */
  type Control = [css: string, what: string];

  /** The selector of the first of `controls` on the page. */
  async function firstPresent(page: Page, controls: Control[]): Promise<string | undefined> {
    for (const [css, what] of controls) if (await present(page, css, what)) return css;
    return undefined;
  }

  async function anyPresent(page: Page, controls: Control[]): Promise<boolean> {
    return (await firstPresent(page, controls)) !== undefined;
  }

  interface Watch {
    activity: Activity;
    handover: () => Handover | undefined;
    stray: () => Stray | undefined;
    /** The main frame's last answer (its Refresh header read by refreshesFollowed). */
    answer: () => PwResponse | undefined;
    /** The visit's check's time: refreshes are waited for within what is left of it. */
    time: CheckTime | undefined;
    /** Refreshes followed in this visit (MAX_STEPS at most). */
    refreshes: number;
  }

  /**
   * The visit is over: the hand-over was caught, or the page was stopped on its way elsewhere. A
   * stopped navigation never finishes, so a page that leaves as it loads never looks quiet: without
   * this, every wait below ran to the page's time limit before the stray was said.
   */
  const over = (watch: Watch) => !!(watch.handover() || watch.stray());

  /**
   * Act, then wait for what matters: the hand-over, a navigation or URL change, a control of the
   * next step, or the acted-on control gone (the script drew something else); failing those, a
   * page that has fallen quiet has answered the action as far as it will (a refusal shown in place).
   */
  async function settle(
    page: Page,
    watch: Watch,
    action: () => Promise<unknown>,
    after: { gone?: Locator; next?: Control[] } = {},
  ): Promise<void> {
    await answered(page, watch, action, after);
    await refreshesFollowed(page, watch);
  }

  /**
   * A page that sends itself elsewhere by its Refresh header or a `<meta http-equiv="refresh">`
   * within a few seconds (refreshOf: IdentityServer's Redirect page, a sign-in's cookie bounce) is
   * on its way, not the answer: wait for Chromium to follow it, as a person waits, its delay and a
   * moment more, page after page. Before, such a page was read at once: after the password, as a
   * refused sign-in. Past MAX_STEPS refreshes in the visit (A→B→A→B, or a new URL each time), or
   * past the check's time left, the pages are said at once (review 14: they ran to the check's
   * limit, "the target did not answer"); a page polling between two URLs a few times goes on.
   */
  async function refreshesFollowed(page: Page, watch: Watch): Promise<void> {
    while (!over(watch)) {
      // Briefly: a navigation the driver stopped (a page leaving as it loads) never loads, and is said
      // by the caller at once (over), not after the page's time limit.
      await page.waitForLoadState('domcontentloaded', { timeout: 2 * QUIET_MS }).catch(() => undefined);
      if (over(watch)) return;
      const navigations = watch.activity.navigations;
      const at = page.url();
      const header = watch.answer()?.headers().refresh;
      // The Refresh header first, as html.ts refreshOfAnswer reads it; else the live page's meta tag.
      const refresh =
        (header === undefined ? undefined : refreshOf(header)) ??
        (await page
          .evaluate(() => {
            const metas = [...document.querySelectorAll('meta[http-equiv]')];
            return metas
              .find((m) => m.getAttribute('http-equiv')?.trim().toLowerCase() === 'refresh')
              ?.getAttribute('content');
          })
          .then(
            (content) => (typeof content === 'string' ? refreshOf(content) : undefined),
            // The page went on as it was read (a refresh at once, Chromium ahead of us): a hop too,
            // read again once loaded (before, the driver stopped waiting and read a page refreshing on).
            (error: Error) => (/context was destroyed/i.test(error.message) ? ('went on' as const) : undefined),
          ));
      const moved = refresh === 'went on';
      if (!moved && (!refresh || refreshesItself(at, refresh.url) || !URL.canParse(refresh.url, at))) return;
      const [from, to] = [new URL(at), new URL(moved ? page.url() : refresh.url, at)];
      if (++watch.refreshes > MAX_STEPS) throw new HarnessError(refreshedRoundAndRound(from, to));
      if (moved) continue;
      const wait = refresh.seconds * 1000 + 2 * QUIET_MS;
      if (watch.time && wait > watch.time.leftMs())
        throw new HarnessError(
          `the provider's pages refresh round and round: ${from.pathname} refreshes to ${to.pathname} after ${refresh.seconds} s, past the check's time left`,
        );
      const until = Date.now() + wait;
      while (watch.activity.navigations === navigations && !over(watch) && Date.now() < until) await sleep(POLL_MS);
      if (watch.activity.navigations === navigations) return;
    }
  }

  /** settle's wait for what the action did, before any refresh is followed. */
  async function answered(
    page: Page,
    watch: Watch,
    action: () => Promise<unknown>,
    after: { gone?: Locator; next?: Control[] },
  ): Promise<void> {
    const { activity } = watch;
    const navigations = activity.navigations;
    const url = page.url();
    await action();
    const acted = Date.now();
    const deadline = acted + pageTimeout;
    for (;;) {
      if (over(watch) || activity.navigations !== navigations || page.url() !== url) return;
      if (after.gone && !(await after.gone.isVisible().catch(() => false))) return;
      if (await anyPresent(page, after.next ?? [])) return;
      if (quietFor(activity, QUIET_MS) && Date.now() - acted >= QUIET_MS) return;
      if (Date.now() >= deadline) throw unresponsive(page, pageTimeout);
      await sleep(POLL_MS);
    }
  }

  /** Until the page sends a request, navigates or opens a window (the page's time limit at most). */
  async function submitted(watch: Watch, navigations: number, sent: number, popups: number): Promise<void> {
    const deadline = Date.now() + pageTimeout;
    const { activity } = watch;
    while (
      activity.navigations === navigations &&
      activity.sent === sent &&
      pages.popups().count === popups &&
      !over(watch) &&
      Date.now() < deadline
    )
      await sleep(POLL_MS);
  }

  /**
   * Plain HTML is ready at `load`; a page with scripts may draw a control we act on later: wait for
   * one, while the page keeps fetching, and at least a moment once it is quiet.
   */
  async function ready(page: Page, watch: Watch, controls: Control[]): Promise<void> {
    // A page stopped on its way elsewhere may never reach `load`: the visit is over then.
    const loaded = page.waitForLoadState('load').then(
      () => true,
      () => true,
    );
    const tick = () => sleep(POLL_MS).then(() => false);
    while (!over(watch)) if (await Promise.race([loaded, tick()])) break;
    if (over(watch)) return;
    if (
      (await page
        .locator('script')
        .count()
        .catch(() => 0)) === 0
    )
      return;
    const start = Date.now();
    while (!over(watch) && Date.now() - start < pageTimeout) {
      if (await anyPresent(page, controls)) return;
      if (quietFor(watch.activity, QUIET_MS) && Date.now() - start >= SCRIPT_RENDER_MS) return;
      await sleep(POLL_MS);
    }
  }

  /**
   * Submit what was typed into `field`: Enter in a form, as a person would, with its default
   * button's name and value; otherwise the `button` given (CSS, and the config field naming it).
   */
  async function submit(page: Page, watch: Watch, field: Locator, button: Control | undefined, next: Control[]) {
    const click = button && (await present(page, ...button)) ? shown(page, button[0]) : undefined;
    await settle(page, watch, () => (click ? click.click() : field.press('Enter')), { gone: field, next });
  }

  /** Tick the boxes to agree to (terms of use) under `root`, as a person going on would. */
  async function tickAgreements(root: Locator | Page): Promise<void> {
    // Each tick takes the box out of the selector: always the first, as many times as there were.
    const boxes = root.locator(AGREEMENT_BOXES);
    for (let n = await boxes.count(); n > 0; n--) await boxes.first().check();
  }

  /**
   * A form the page will not submit as filled (the configured username in a `type=email` field, a
   * pattern it breaks) is a refused sign-in, said at once: the browser would send nothing, and the
   * wait for an answer would end, 30 s later, as "its sign-in form again". Only the field's name and
   * what it lacks are said: Chromium's message repeats the value.
   */
  async function refusedIfInvalid(form: Locator): Promise<void> {
    const invalid = await form.evaluate((element) => {
      // A form marked novalidate is sent as it is.
      if ((element as HTMLFormElement).noValidate) return undefined;
      const field = (element as HTMLFormElement).querySelector<HTMLInputElement>(':invalid');
      if (!field) return undefined;
      const failed = Object.entries(Object.getOwnPropertyDescriptors(ValidityState.prototype))
        .map(([key]) => key)
        .filter((key) => key !== 'valid' && field.validity[key as keyof ValidityState] === true);
      return `${(field.name || field.type).slice(0, 60)}: ${failed.join(', ')}`;
    });
    if (invalid) signInRefused(http, `its form does not take what the driver typed, ${invalid}`);
  }

  /**
   * On a page with scripts, a username field beside a "Sign in" control and no step one ("Next",
   * "Continue") is a one-page sign-in whose password field is still to come: wait for it (the script
   * allowance). True when it came.
   */
  async function passwordDue(page: Page): Promise<boolean> {
    const [signInWords, stepWords] = [roleSelector('signIn'), roleSelector('step')];
    if (!(await present(page, signInWords, 'sign-in button')) || (await present(page, stepWords, 'next button')))
      return false;
    if ((await page.locator('script').count()) === 0) return false;
    await page
      .locator(passwordCss)
      .first()
      .waitFor({ state: 'visible', timeout: SCRIPT_RENDER_MS })
      .catch(() => undefined);
    return present(page, passwordCss, 'password field');
  }

  /** The form around `field`, if there is one. */
  async function formOf(field: Locator): Promise<Locator | undefined> {
    const form = field.locator('xpath=ancestor::form[1]');
    return (await form.count()) > 0 ? form : undefined;
  }

  /**
   * Does Enter in `form` send it? Only with a submit button: a form of two fields and none (its
   * control a script's `<div role=button>`) is sent by nothing else (HTML's implicit submission),
   * and the page's silence was taken for a refused sign-in.
   */
  const entered = async (form: Locator | undefined) => !!form && (await form.locator(SUBMIT_BUTTONS).count()) > 0;

  /**
   * Fill the sign-in fields (in the password's form, or on the page when a script draws them
   * without one) and submit, with the configured or a "Sign in" button when there is no form. After
   * a username page (`identified`), the username may be shown read-only, or not at all.
   */
  async function signIn(page: Page, watch: Watch, identified: boolean, next: Control[]): Promise<void> {
    const { username, password: secret } = signInUser(http, config);
    const password = shown(page, passwordCss);
    const scope = await formOf(password);
    const root = scope ?? page.locator('body');
    const named = root.locator(`input[name=${cssString(d.loginField)}]`);
    const login = (await named.count())
      ? named.first()
      : identified
        ? undefined
        : root.locator('input[type="text"]:visible, input[type="email"]:visible, input:not([type]):visible').first();
    if (login && (await login.count()) && (await login.isEditable())) await login.fill(username);
    await password.fill(secret);
    await tickAgreements(root);
    if (scope) await refusedIfInvalid(scope);
    const buttonCss = d.signInSelector ?? ((await entered(scope)) ? undefined : STEP_SELECTORS.signIn);
    await submit(page, watch, password, buttonCss ? [buttonCss, 'signInSelector'] : undefined, next);
  }

  /** The username alone (identifier-first sign-in), submitted like the sign-in form; "Next" when there is no form. */
  async function identify(page: Page, watch: Watch, next: Control[]): Promise<void> {
    const { username } = signInUser(http, config);
    const field = shown(page, identifierCss);
    await field.fill(username);
    const form = await formOf(field);
    if (form) await refusedIfInvalid(form);
    const button: Control | undefined = (await entered(form)) ? undefined : [STEP_SELECTORS.identify, 'next button'];
    await submit(page, watch, field, button, next);
  }

  /** A visit (play) while Chromium is pinged: a frozen one ends the visit, saying so. */
  async function visit(...args: Parameters<typeof play>): ReturnType<typeof play> {
    if (gone()) throw browserGone();
    const beat = heartbeat();
    const played = play(...args);
    try {
      return await Promise.race([played, beat.frozenNow]);
    } finally {
      beat.stop();
      played.catch(() => undefined);
    }
  }

  /**
   * Open `startUrl` and act as the user until the provider hands over to the application or has
   * nothing left to decide. `userCode` goes into the device page's code field when it is empty.
   */
  async function play(
    startUrl: string,
    decision: Decision,
    userCode?: string,
    options: AuthorizeOptions = {},
  ): Promise<Journey> {
    // This visit's own check (its time limit): a later check's never reaches it.
    const time = checkTime;
    const page = await pages.open().catch((error: unknown) => {
      throw gone() ? browserGone() : error;
    });
    /** The check ended before the visit: its page is closed, its wait cut short (timedBy). */
    let ended = false;
    const abandoned = new AbortController();
    const end = () => {
      ended = true;
      abandoned.abort();
      void page.close().catch(() => undefined);
    };
    /** A wait for the target ends with the visit, and at once when the run is interrupted (CheckTime.stop). */
    const waitEnds = time?.stop ? AbortSignal.any([abandoned.signal, time.stop]) : abandoned.signal;
    visits.set(end, time);
    if (checkTime !== time) end();
    /** The page's renderer died (killed, out of memory): the browser lives on, this visit is over. */
    let crashed = false;
    page.once('crash', () => void (crashed = true));
    /** Downloads the page started (each cancelled: acceptDownloads is off). */
    let downloads = 0;
    page.on('download', (download) => {
      downloads++;
      void download.cancel().catch(() => undefined);
    });
    // A renderer whose script never yields leaves some calls (a count, a visibility) waiting with no
    // time limit of their own: with no step done for twice the page's limit, the page is closed,
    // which ends them, and the visit says why.
    let stalled = false;
    /**
     * The visit is at the sign-in (its username or password being sent): a page problem there is the
     * run's. The password's, until the provider answers it with a redirect off the sign-in page
     * (offSignIn): past that the credentials were taken, and a page that hangs is its own (hform22).
     */
    let signingIn: 'username' | 'password' | undefined;
    /** The path of the page the password was typed on (the provider's sign-in page, whatever signInPath says). */
    let passwordAt: string | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    /** The watchdog's time: twice the page's limit, and never past the check's (WATCHDOG_MARGIN_MS). */
    let stallMs = 2 * pageTimeout;
    const progress = () => {
      clearTimeout(watchdog);
      const left = time?.leftMs() ?? Infinity;
      stallMs = Math.max(1, Math.round(Math.min(2 * pageTimeout, left - Math.min(WATCHDOG_MARGIN_MS, left / 4))));
      watchdog = setTimeout(() => {
        stalled = true;
        void page.close().catch(() => undefined);
      }, stallMs);
    };
    progress();
    let last: PwResponse | undefined;
    /**
     * The page load the target left unanswered for --timeout (no answer's headers): the visit ends
     * there, as the HTTP target ends a request of its own, and the session takes the endpoint for
     * silent (one silence, said once: UnansweredPage). An answer within it, however slow, goes on.
     */
    let unanswered: PwRequest | undefined;
    let silence: NodeJS.Timeout | undefined;
    page.on('request', (request) => {
      if (!isMainNavigation(page, request)) return;
      awaiting.set(page, request);
      clearTimeout(silence);
      if (answerWithin !== undefined)
        silence = setTimeout(() => {
          if (awaiting.get(page) !== request) return;
          unanswered = request;
          void page.close().catch(() => undefined);
        }, answerWithin);
    });
    const noAnswer = (request: PwRequest) =>
      new UnansweredPage(
        `${request.method()} ${new URL(request.url()).pathname.slice(0, 200)}: no answer within ${answerWithin} ms`,
        { method: request.method(), url: request.url() },
      );
    // A navigation that failed awaits nothing, unless the watchdog's close (or the silence's) failed it: it hung.
    page.on('requestfailed', (request) => {
      if (!stalled && !unanswered && awaiting.get(page) === request) awaiting.delete(page);
    });
    /**
     * Does `response` send the browser off the sign-in page (a redirect elsewhere on the provider or
     * beyond: not to the page the password was typed on, nor to signInPath)? Not a 307 or 308:
     * those carry the password on to be judged there.
     */
    const offSignIn = (response: PwResponse) => {
      const to = response.headers().location;
      const status = response.status();
      if (status < 300 || status >= 400 || keepsRequest(status) || !to || !URL.canParse(to, response.url()))
        return false;
      const path = new URL(to, response.url()).pathname;
      return !samePath(path, d.signInPath) && (passwordAt === undefined || !samePath(path, passwordAt));
    };
    page.on('response', (response) => {
      if (!isMainNavigation(page, response.request())) return;
      if (awaiting.get(page) === response.request()) {
        awaiting.delete(page);
        clearTimeout(silence);
      }
      if (signingIn === 'password' && offSignIn(response)) signingIn = undefined;
      last = response;
      // The page loads are the evidence of this flow; headers only (bodies stay in the browser).
      http.record({
        request: { method: response.request().method(), url: response.url(), headers: {} },
        response: { status: response.status(), headers: response.headers() },
      });
    });
    // The same decision as every request of the harness (runner/http.ts): the target's origins only.
    // This flow's own redirect_uri hands over too: a check may ask with one the config does not list
    // (a registered application's, a loopback one on another port).
    const asked = new URL(startUrl).searchParams.get('redirect_uri');
    const handsOverHere = (url: string) => handsOver(url) || (!!asked && handsOverTo(url, asked));
    // The sign-in page that could not be played, met again before any sign-in went through: never
    // loaded (a page whose script never yields would hang this visit too), the check skipped.
    const metAgain = (url: string) =>
      unplayableAt !== undefined && !session && signInStopped(http) && samePath(new URL(url).pathname, unplayableAt);
    const { handover, stray, stopped, pageStopped } = await guardRequests(
      context,
      page,
      handsOverHere,
      (url) => http.leaves(url),
      metAgain,
      (url, status) => status >= 200 && status < 300 && hungAt(url) !== undefined,
    );
    /** A page stopped before it showed: the sign-in that could not be played, or another page that hung. */
    const skipIfMetAgain = () => {
      if (stopped()) beforeSignIn(http);
      const at = pageStopped();
      const path = at === undefined ? undefined : hungAt(at);
      if (path !== undefined)
        throw new CheckSkipped(
          `the provider's page at ${path} did not respond earlier in this run (${hung.get(path)}); it is not loaded again`,
        );
    };
    const watch: Watch = { activity: watchActivity(page), handover, stray, answer: () => last, time, refreshes: 0 };
    const decisionCss = selector(decision);
    const controls: Record<'password' | 'decision' | 'continue', Control> = {
      password: [passwordCss, 'password field'],
      decision: [decisionCss, `${decision}Selector`],
      continue: [d.continueSelector, 'continueSelector'],
    };
    /**
     * The page shown is the one that answered the password, nothing pressed since: only on it is a
     * page with nothing to go on with the password's refusal (the answer to another POST is not).
     */
    let onAnswer = false;
    /** The page as the password's answer, when it is that (for answeredByLinks). */
    const asAnswer = (html: string): PasswordAnswer => ({ html, url: page.url(), status: last?.status() ?? 0 });
    /** Click a control and wait until the page has answered it (read to the end first, when that enables it). */
    const press = async (css: string, next: Control[]) => {
      onAnswer = false;
      const button = shown(page, css);
      await readToEnable(page, button);
      return settle(page, watch, () => button.click(), { gone: button, next });
    };
    const identifier: Control = [identifierCss, 'username field'];
    /** A page on the way to the decision: boxes to tick first (terms of use), then steps (form.ts has the twin). */
    const agreement: Control = [AGREEMENT_BOXES, 'box to tick'];
    /** The user's own account (a picker), the answer the decision leans to ("Stay signed in?"), putting off what can wait. */
    const steps: Control[] = [
      ...(config.user ? [[accountSelector(config.user.username), 'account'] as Control] : []),
      [roleSelector(decision === 'approve' ? 'yes' : 'no'), 'answer'],
      [roleSelector('postpone', 'deny'), 'step'],
    ];
    /**
     * Send the credentials (or the username alone) with `send`, then judge the answer: refused when
     * a client or throttling error answered them or, once the page has settled, it asks for `asked`
     * again and offers nothing else.
     */
    const signInStep = async (send: () => Promise<void>, next: Control[], asked: Control, detail: string) => {
      const { navigations, sent } = watch.activity;
      const [popups, downloaded] = [pages.popups().count, downloads];
      // A window the page asked for before (an advert's): what it asks for after cannot be told apart.
      const openedBefore = await windowOpened(page);
      /**
       * The sign-in form still shown after the page sent what was typed into a new window, or the
       * provider answered it with a download: the page's doing, said once, never a refused password.
       */
      const answeredElsewhere = async () => {
        if (downloads > downloaded) signInUnplayable(http, 'the provider answered the sign-in with a file download');
        const opened =
          pages.popups().count > popups
            ? (pages.popups().last ?? 'about:blank')
            : openedBefore === undefined
              ? await windowOpened(page)
              : undefined;
        if (opened === undefined) return;
        const to = URL.canParse(opened) ? new URL(opened) : undefined;
        const off = to && /^https?:$/.test(to.protocol) ? http.leaves(to.href) : undefined;
        signInUnplayable(
          http,
          to && off
            ? `the page sent the sign-in to a new window at ${to.origin}: nothing was sent there`
            : 'the page opened the sign-in in a new window, which the driver does not follow',
        );
      };
      // A page asking for a new password twice is no sign-in form again: the next step says it needs a person.
      const askedAgain = async () =>
        !handover() &&
        (await present(page, ...asked)) &&
        !(await anyPresent(page, next)) &&
        (await shownCount(page, NEW_PASSWORD_CSS)) < NEW_PASSWORD_FIELDS;
      await send();
      // Blocked on its way elsewhere: said below, as what it is.
      if (stray()) return;
      const answer = watch.activity.navigations !== navigations ? last : undefined;
      if (answer) standingIn(answer);
      refusedIfClientError(http, answer && { status: answer.status(), headers: headersOf(answer) });
      await ready(page, watch, next);
      if (!(await askedAgain())) return;
      await answeredElsewhere();
      // A refusal is the provider's answer: when nothing has gone out yet (a page too busy to send
      // the form, or one whose script submits after a step of its own), wait for the submission,
      // up to the page's time limit, and its answer, then judge.
      if (watch.activity.navigations === navigations && watch.activity.sent === sent) {
        await settle(page, watch, () => submitted(watch, navigations, sent, popups), { next });
        await ready(page, watch, next);
        if (!(await askedAgain())) return;
        await answeredElsewhere();
      }
      signInRefused(http, detail);
    };
    try {
      let signedIn = false;
      /**
       * The password's answer was a page (not a redirect off the provider, caught as it came): only
       * then is a redirect elsewhere the consent going on there, else it is the sign-in's.
       */
      let passwordAnswered = false;
      /** The username alone went out (identifier-first sign-in): the password comes next. */
      let identified = false;
      let decided = false;
      let continued = 0;
      /** The user code's own form was sent (a page with no decision of its own: FusionAuth's). */
      let codeSent = false;
      /** An interstitial's continuation was followed (continuationGranted). */
      let linkFollowed = false;
      /** Something besides the sign-in was pressed or followed (AuthorizeOutcome.stepped). */
      let stepped = false;
      /** The decisions pressed, each by its form's action, control and field names (form.ts's signature). */
      const decidedAt = new Set<string>();
      /** The decision control shown, as decidedAt keeps it; a page that goes away as it is read, its URL. */
      const decisionSignature = () =>
        shown(page, decisionCss)
          .evaluate((e) => {
            const control = e as HTMLButtonElement;
            const form = control.form ?? e.closest('form');
            const fields = form ? [...form.elements].map((f) => (f as HTMLInputElement).name).join(',') : '';
            return `${form?.action ?? location.href}|${control.name ?? ''}=${control.value ?? ''}|${fields}`;
          })
          .catch(() => page.url());
      /** Press the decision control of the page shown. */
      const decide = async () => {
        decided = stepped = true;
        decidedAt.add(await decisionSignature());
        consentMet(http);
        // Approving approves the requested scopes: boxes a page leaves unticked are ticked (html.ts, withScopesTicked).
        // (Each tick takes the box out of the selector: always the first, as many times as there were.)
        const boxes = page.locator(UNTICKED_SCOPE_BOXES);
        for (let n = decision === 'approve' ? await boxes.count() : 0; n > 0; n--) await boxes.first().check();
        await press(decisionCss, [controls.continue]);
      };
      /** The links of ways to sign in, and of interstitials, followed (each once). */
      const chosenWays = new Set<string>();
      /** Asked to deny, a page of links only that reads as the consent (sign-in.ts): its link is never pressed. */
      const stopAtConsent = (source: string | null | undefined, link?: { href: string; label: string }) => {
        if (decision !== 'deny' || !source) return;
        const named = namesTheGrant(source, page.url(), startUrl, redirectUris);
        if (named !== undefined) {
          if (signedIn) signedInOnce(http);
          session ||= signedIn;
          throw consentOfLinks(page.url(), named);
        }
        // A link that may approve for another reason (its words, or leading elsewhere than the
        // authorization on a page asking nothing) is not followed either; the page proves no sign-in.
        const may = link && denyMayGrant(source, page.url(), startUrl, redirectUris, link);
        if (may) throw consentOfLinks(page.url(), may);
      };
      /**
       * Asked to deny, before a step that goes on (`css`: Continue, the code form's Submit): never
       * one that may be the approval (sign-in.ts, stepMayApprove); the device code's own entry form, a
       * code field a person sees and the code not sent yet, grants nothing (the sign-in is played above).
       */
      /** Why a step on the page shown may be the approval (sign-in.ts, stepMayApprove), undefined when it cannot. */
      const denyMayApprove = async () => {
        const source = await pageSource(page);
        const codeOut = codeSent || userCode !== undefined;
        return source === null
          ? undefined
          : stepMayApprove({ html: source, url: page.url() }, startUrl, redirectUris, codeOut);
      };
      /**
       * Asked to deny, why the agreement step (its control saying `label`) may be the approval: its
       * words grant (Authorize, Allow: never terms of use's Accept or Continue), or the page reads as
       * the consent (stepMayApprove's terms reading), past the device code's own entry form.
       */
      const agreementMayApprove = async (label: string) => {
        if (GRANTS.test(label)) return 'its words grant';
        if (!codeSent && (await shownCount(page, USER_CODE_FIELD)) > 0) return undefined;
        const source = await pageSource(page);
        const codeOut = codeSent || userCode !== undefined;
        return source === null
          ? undefined
          : stepMayApprove({ html: source, url: page.url() }, startUrl, redirectUris, codeOut, true);
      };
      const denyNoStep = async (css: string) => {
        if (decision !== 'deny') return;
        if (!codeSent && (await shownCount(page, USER_CODE_FIELD)) > 0) return;
        const why = await denyMayApprove();
        if (why === undefined) return;
        if (signedIn) signedInOnce(http);
        session ||= signedIn;
        const control = shown(page, css);
        const label = await control.evaluate((e) => (e instanceof HTMLInputElement ? e.value : e.textContent) ?? '');
        throw noWayToDeny(page.url(), label || 'none shown', why);
      };
      /** The start page loaded (or again): an aborted navigation (we caught the hand-over) is the expected end. */
      const load = (loading: Promise<unknown>) =>
        loading.then(
          () => undefined,
          (error: Error) => {
            if (handover() || /ERR_ABORTED|ERR_FAILED|frame was detached/i.test(error.message)) return;
            // Chromium's reason only: its message repeats the URL, and a device URL carries the user code.
            const reason = /net::[A-Z_]+/.exec(error.message)?.[0] ?? error.name;
            throw new HarnessError(`the browser could not open ${new URL(startUrl).pathname}: ${reason}`);
          },
        );
      await settle(page, watch, () => load(page.goto(startUrl, { waitUntil: 'commit' })));
      skipIfMetAgain();
      // Steps: sign in, decide, then continue (a button or link that leads on), each once it shows.
      let throttled = 0;
      let waitedOut = 0;
      for (let step = 0; step < MAX_STEPS && !handover() && !stray(); step++) {
        skipIfMetAgain();
        progress();
        // A page the target declined to serve now is no page of the provider's: waited out, loaded again.
        // The refusal's own page loaded first (a reload that interrupts it fails in Chromium), within
        // the time left, which is read after it: that load counts against the limit as the wait does.
        if (refusedNow(last) && last.request().method() === 'GET') {
          clearTimeout(watchdog);
          const loading = Math.max(1, Math.min(pageTimeout, time?.leftMs() ?? Infinity));
          await page.waitForLoadState('domcontentloaded', { timeout: loading }).catch(() => undefined);
        }
        const wait = throttledFor(last, throttled, waitedOut, time?.leftMs() ?? Infinity);
        if (wait !== undefined) {
          throttled++;
          waitedOut += wait;
          clearTimeout(watchdog);
          await REAL_CLOCK.sleep(wait * 1000, waitEnds);
          if (ended) throw new HarnessError(LEFT_BEHIND);
          // Nothing more is loaded: the page the wait was for is not asked again (the HTTP target's retry is not sent).
          if (time?.stop?.aborted) throw new HarnessError(INTERRUPTED_WAIT);
          progress();
          await settle(page, watch, () => load(page.reload({ waitUntil: 'commit' })));
          continue;
        }
        // Before the sign-in a username page is an answer too: waiting only for the others would
        // spend the whole script allowance on every identifier-first sign-in.
        await ready(page, watch, [
          ...Object.values(controls),
          ...(decided ? [] : [agreement, ...steps]),
          ...(signedIn || identified ? [] : [identifier]),
        ]);
        // A second factor, a CAPTCHA: nothing is guessed, nothing more is sent (needs-person.ts).
        for (const { what, css, shown: visible, atLeast = 1, unless } of decided ? [] : NEEDS_PERSON_SELECTORS)
          if (
            (visible ? (await shownCount(page, css)) >= atLeast : (await page.locator(css).count()) > 0) &&
            (unless === undefined || (await shownCount(page, unless)) === 0)
          )
            signInNeedsPerson(http, what);
        if (!signedIn && (await present(page, ...controls.password))) {
          // A later visit meeting the sign-in form again: the unsettled password was not accepted.
          signInMetAgain(http, unsettled);
          signedIn = true;
          signingIn = 'password';
          passwordAt = new URL(page.url()).pathname;
          const next = [controls.decision, controls.continue];
          await signInStep(
            () => signIn(page, watch, identified, next),
            next,
            controls.password,
            'its sign-in form again',
          );
          signingIn = undefined;
          passwordAnswered = !handover();
          onAnswer = true;
          continue;
        }
        // A username page (identifier-first sign-in): the username alone, then the password on the
        // page that follows (another, or this one redrawn by its script).
        if (!signedIn && !identified && (await present(page, ...identifier))) {
          // A one-page sign-in whose script has not drawn the password field yet says "Sign in",
          // not "Next": the username sent alone would be refused (and the config blamed).
          if (await passwordDue(page)) continue;
          signInMetAgain(http, unsettled);
          identified = true;
          signingIn = 'username';
          const next = [controls.password, controls.decision, controls.continue];
          await signInStep(() => identify(page, watch, next), next, identifier, 'its username form again');
          continue;
        }
        // A choice of ways to sign in (Dex's connectors): the configured one's link (sign-in.ts).
        // Not on a page with the decision: the browser keeps its session, so a later drive lands on
        // the consent page with nothing typed, where "Sign in with another account" is no choice.
        if (!signedIn && !identified && !decided && !(await present(page, ...controls.decision))) {
          const source = await pageSource(page);
          const way = source
            ? wayToSignIn(http, waysOf(parseForms(source), source), page.url(), d.signInPath)
            : undefined;
          if (way !== undefined && !chosenWays.has(`${way.href}|${way.label}`)) {
            chosenWays.add(`${way.href}|${way.label}`);
            await press(wayCss(way), [controls.password, identifier]);
            continue;
          }
        }
        // Approved, another consent page after it (a provider's own for a request it finds unusual,
        // then its usual one): approved too, as the form driver does; never a page already decided
        // (one shown again). Before, one decision a visit: the second page ended it, no code, and
        // a must failed for the driver's limit (review 18).
        if (
          decided &&
          decision === 'approve' &&
          (await present(page, ...controls.decision)) &&
          !decidedAt.has(await decisionSignature())
        ) {
          await decide();
          continue;
        }
        if (!decided) {
          if (userCode !== undefined) {
            const field = page.locator(USER_CODE_FIELD).first();
            if ((await field.count()) && !(await field.inputValue())) await field.fill(userCode);
          }
          // Boxes to tick before going on (terms of use): before the decision, whose words its
          // buttons share (Accept, Decline), a step whatever the decision. Asked to deny, an
          // agreement step whose control grants (an "I agree" box beside Authorize, not Accept or
          // Continue), or on a page whose terms reading is the consent's (stepMayApprove), is the
          // consent: its boxes ticked, as a person must for the form to be sent, then Deny is
          // pressed below; with no deny control nothing is pressed. Terms of use name no grant:
          // accepted, to reach the consent (form.ts has the twin).
          if (await present(page, ...agreement)) {
            await tickAgreements(page);
            const onward = (await present(page, AGREE, 'control that goes on')) ? shown(page, AGREE) : undefined;
            const label = onward ? (await linkOf(onward)).label || (await onward.inputValue().catch(() => '')) : '';
            const why = decision === 'deny' ? await agreementMayApprove(label) : undefined;
            if (why !== undefined && !(await present(page, ...controls.decision))) {
              if (signedIn) signedInOnce(http);
              session ||= signedIn;
              throw noWayToDeny(page.url(), label || 'none shown', why);
            }
            if (why === undefined) {
              if (onward) {
                stepped = true;
                await press(AGREE, Object.values(controls));
              }
              continue;
            }
          }
          if (await present(page, ...controls.decision)) {
            await decide();
            continue;
          }
          const step = await firstPresent(page, steps);
          if (step) {
            stepped = true;
            await press(step, Object.values(controls));
            continue;
          }
          // The code's form with no decision on it (the code before the sign-in), sent once as a person would.
          if (
            userCode !== undefined &&
            !codeSent &&
            (await present(page, USER_CODE_SUBMIT[decision], 'user code form'))
          ) {
            // A code field the page hides is no entry: its form is the confirmation itself.
            await denyNoStep(USER_CODE_SUBMIT[decision]);
            codeSent = stepped = true;
            await press(USER_CODE_SUBMIT[decision], Object.values(controls));
            continue;
          }
          // Signed in (in this visit or, the session living on, an earlier one), a page of links only:
          // an interstitial's one link that goes on (sign-in.ts).
          const source =
            (signedIn || session || unsettled) &&
            mayContinue(decision, codeSent || userCode !== undefined) &&
            (await page.locator(ANY_CONTROL).count()) === 0
              ? await pageSource(page)
              : undefined;
          const onward = source ? continuation(http, source, page.url(), d.signInPath, decision) : undefined;
          if (source && onward && !chosenWays.has(`${onward.href}|${onward.label}`)) {
            stopAtConsent(source, onward);
            chosenWays.add(`${onward.href}|${onward.label}`);
            linkFollowed = stepped = true;
            if (onAnswer) unsettled = { answer: asAnswer(source), followed: onward.label };
            await press(wayCss(onward), Object.values(controls));
            // The sign-in form coming back after that link: the password refused still, never typed again.
            if (signedIn && !handover() && (await present(page, ...controls.password)))
              signInRefused(http, 'its sign-in form again, after the link on the page that answered the password');
            continue;
          }
        }
        // Nor, asked to deny once the code went out, a page of links only's continue link (mayContinue).
        if (
          continued < MAX_CONTINUES &&
          (await present(page, ...controls.continue)) &&
          (mayContinue(decision, codeSent || userCode !== undefined) || (await page.locator(ANY_CONTROL).count()) > 0)
        ) {
          // The control about to be pressed, read once: the deny gate and the unsettled answer both name it.
          const step = await linkOf(shown(page, d.continueSelector));
          if (!decided && (await page.locator(ANY_CONTROL).count()) === 0) stopAtConsent(await pageSource(page), step);
          else if (!decided) await denyNoStep(d.continueSelector);
          continued++;
          linkFollowed = stepped = true;
          if (onAnswer)
            unsettled = { answer: asAnswer((await pageSource(page)) ?? ''), followed: step.label.slice(0, 200) };
          await press(d.continueSelector, []);
          continue;
        }
        break;
      }
      skipIfMetAgain();
      // A step that read the closed page as nothing there must not pass for the page's answer.
      if (unanswered) throw noAnswer(unanswered);
      if (!decided && !handover() && !stray()) {
        const source = await pageSource(page);
        if (source && awaitsEmail(source)) signInNeedsPerson(http, 'a link sent by e-mail');
        // An account picker with no entry of the user's (none pressed above): no other account is picked.
        const user = config.user?.username;
        if (
          source &&
          PICKER.test(pageText(source)) &&
          !(user && (await present(page, accountSelector(user), 'account')))
        )
          accountNotListed(http);
        // The password answered by a page with nothing to go on with ("the password is incorrect");
        // one whose links approve may as well be a consent of links: said once, never a sign-in.
        if (
          signedIn &&
          onAnswer &&
          last?.request().method() === 'POST' &&
          (await page.locator(ANY_CONTROL).count()) === 0
        ) {
          if (source && decidedByLinks(source, page.url(), d.signInPath)) answeredByLinks(http, asAnswer(source));
          signInRefused(http, `status ${last.status()}, a page with no form`);
        }
      }
      const off = stray();
      // The password (or a consent) bound elsewhere: not sent, and the driver cannot go on.
      if (off && !handover())
        throw new HarnessError(
          `the page sent the browser to ${off.url.origin}${off.url.pathname}, which ${off.why}: nothing was sent there (trustedOrigins lists the provider's other origins)`,
        );
      const away = handover();
      // Not to the application, before any decision: the sign-in going on where nothing may be sent.
      const offside = away && !handsOverHere(away.url.href) ? http.leaves(away.url.href) : undefined;
      if (away && offside && !decided)
        goingOnElsewhere(
          http,
          away.url,
          offside,
          { redirectUris, asked, malformed: options.malformed },
          // A redirect answering the password goes on with the sign-in only where it keeps the POST
          // (307, 308: the password would go there); after a 302 or 303 the password was answered,
          // and what goes on elsewhere is the consent (Ory Hydra's consent application).
          passwordAnswered || (signedIn && !keepsRequest(away.response?.status)) ? 'consent' : 'sign-in',
        );
      if (away) continuationGranted(decision, decided, linkFollowed, away.url);
      // Past a link from a page of links only that answered the password (unsettled), only a decision
      // or the hand-over counts the sign-in; the answer to a request the provider may refuse or a
      // check malformed is the check's alone, as is the device page's to the code: unsettled for a
      // later visit (form.ts, through, has the twin); any other end is that page said once.
      const open = stillUnsettled(http, unsettled, {
        settles: decided || !!away,
        own: !!options.malformed || !!options.refusable,
        codeSent,
      });
      // The provider's redirect to the application was stopped before Playwright saw it: record it.
      if (away?.response)
        http.record({
          request: { method: 'GET', url: away.response.url, headers: {} },
          response: { status: away.response.status, headers: Object.fromEntries(away.response.headers) },
        });
      // A sign-in that got through (a refused one throws) leaves its session in the browser's context.
      if (!open && (signedIn || unsettled)) {
        signedInOnce(http);
        session = true;
        unsettled = undefined;
      }
      const did = { decided, codeSent, signedIn: session, stepped, consentSeen: consentShown(http) };
      if (away) return { redirect: away.url, response: away.response ?? (await fromPage(page, last)), ...did };
      return { response: await fromPage(page, last), ...did };
    } catch (error) {
      if (gone()) throw browserGone();
      if (ended) throw new HarnessError(LEFT_BEHIND);
      if (crashed)
        throw new HarnessError(
          `the browser's renderer of the provider's page crashed (at ${new URL(page.url()).pathname}: killed, or out of memory), so nothing was seen`,
        );
      // Playwright's own time limit on an action, or the watchdog: the provider's page did not
      // respond (a script that never yields, a control never usable), not a defect of the harness;
      // or the target left a page load unanswered (said as the HTTP target's silence).
      // A sign-in page met again after it could not be played: skipped, as the run said it once.
      skipIfMetAgain();
      const problem = unanswered ? noAnswer(unanswered) : pageProblem(page, error, stalled ? stallMs : undefined);
      if (!problem) throw error;
      const path = whereIs(page);
      // The sign-in's page (before any sign-in of the run went through): every check's way in.
      if (!session && (signingIn !== undefined || samePath(path, d.signInPath))) {
        unplayableAt = path;
        signInUnplayable(http, problem.message);
      }
      // Any other page that did not respond for the page's whole limit (not cut short by the
      // check's time left, which says nothing of the page): remembered for the run.
      if (
        problem instanceof PageUnresponsive &&
        problem.ms >= pageTimeout &&
        /^https?:$/.test(new URL(page.url()).protocol)
      )
        hung.set(path, problem.message);
      throw problem;
    } finally {
      visits.delete(end);
      clearTimeout(watchdog);
      clearTimeout(silence);
      // Bounded: a renderer that does not answer the close must not hold the check past its end
      // (the context's close, when the driver closes, takes the page with it).
      await Promise.race([
        page.close().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, pageTimeout).unref()),
      ]);
    }
  }

  const device = async (userCode: string, decision: Decision, page?: string) => {
    const url = devicePageUrl(http, userCode, page);
    expectDeviceDecided(decision, await visit(url, decision, userCode), url);
  };

  return {
    kind: 'browser',
    movesClock: clock !== undefined,
    async authorize(authorizeUrl, decision, options) {
      return visit(authorizeUrl, decision, undefined, options);
    },
    timedBy(time) {
      checkTime = time;
      // A check that ended (at its time limit, or by another of its flows' error) leaves no visit behind.
      for (const [end, began] of visits) if (began !== time) end();
    },
    approveDevice: (userCode, page) => device(userCode, 'approve', page),
    denyDevice: (userCode, page) => device(userCode, 'deny', page),
    async advanceClock(seconds) {
      if (!clock) throw new CheckSkipped('the target offers no clock control');
      await clock.advanceClock(seconds);
    },
    async close() {
      if (closed) return;
      closed = true;
      // Bounded: a Chromium that stopped answering since the last visit is ended, not waited on.
      const answered = await Promise.race([
        context.close().then(
          () => true,
          () => true,
        ),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), frozenAfter).unref()),
      ]);
      if (!answered) freeze();
      void own.detach().catch(() => undefined);
      await fence?.close();
      // Bounded too where Chromium's process id was never known (freeze could not end it).
      if (answered) await release();
      else await Promise.race([release(), new Promise<void>((resolve) => setTimeout(resolve, frozenAfter).unref())]);
    },
  };
}
