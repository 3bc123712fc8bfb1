/**
 * The `form` driver: plays the user through the provider's own HTML pages over HTTP, as a browser
 * would: a cookie jar, redirects followed while they stay on the provider, the sign-in form filled
 * with the configured user, and the consent (or device) form submitted with the approve or deny
 * button. Forms are found generically, so other providers work with a few config overrides.
 */
import { CookieJar } from 'tough-cookie';
import type { AuthorizeOptions, Driver, Http, HttpResponse, TargetConfig } from '../types.js';
import { CheckSkipped, HarnessError } from '../runner/errors.js';
import {
  accountPattern,
  AGREEMENT_BOX_WORDS,
  CONTROL_WORDS,
  controlPattern,
  PICKER_PATTERN,
  SCOPE_BOX_NAME,
  SIGN_IN_DEFAULTS,
  type ControlRole,
} from './defaults.js';
import {
  disabledForScript,
  formData,
  matchesSelector,
  MAX_STEPS,
  onwardOf,
  openingTags,
  pageText,
  parseForms,
  parseLinks,
  refreshedRoundAndRound,
  submitsItself,
  withScopesTicked,
  type HtmlForm,
  type SubmitButton,
} from './html.js';
import { handsOverToAny, redirectUrisOf } from './hand-over.js';
import { asksNewPassword, awaitsEmail, needsPerson } from './needs-person.js';
import { expectDeviceDecided, type Journey } from './device-outcome.js';
import {
  accountNotListed,
  consentOfLinks,
  answeredByLinks,
  continuation,
  continuationGranted,
  decidedByLinks,
  mayContinue,
  goingOnElsewhere,
  identifierField,
  denyMayGrant,
  namesTheGrant,
  noWayToDeny,
  isSignInWay,
  refusedIfClientError,
  signInNeedsPerson,
  signInRefused,
  signInScripted,
  signInMetAgain,
  stillUnsettled,
  consentScripted,
  signedInOnce,
  consentMet,
  consentShown,
  stepMayApprove,
  samePath,
  signInUser,
  wayToSignIn,
  waysOf,
  type Unsettled,
} from './sign-in.js';

const DEFAULTS = {
  ...SIGN_IN_DEFAULTS,
  devicePath: '/oauth/device',
};
/** The words of each role (defaults.ts) as patterns. */
const WORDS = Object.fromEntries(
  Object.keys(CONTROL_WORDS).map((role) => [role, new RegExp(controlPattern(role as ControlRole), 'i')]),
) as Record<ControlRole, RegExp>;
const AGREEMENT_BOX = new RegExp(AGREEMENT_BOX_WORDS.join('|'), 'i');
const PICKER = new RegExp(PICKER_PATTERN, 'i');
/** The name of a device page's user code field. */
export const USER_CODE_NAME = /user_?code/i;

type Decision = 'approve' | 'deny';

export interface Browser {
  /** Start at a provider URL and act until the provider leaves its own origin or has nothing to submit. */
  browse(
    startUrl: string,
    decision: Decision,
    fill?: (form: HtmlForm) => Record<string, string>,
    options?: AuthorizeOptions & {
      /** An authorization: with no session, every page before the credentials is the way in (the sign-in). */
      authorizing?: boolean;
    },
  ): Promise<Journey>;
}

interface Choice {
  form: HtmlForm;
  button?: SubmitButton;
  /** The decision itself (approve or deny), not a step towards it. */
  explicit: boolean;
  /** A step that goes on (Continue, Next, a form sent with Enter): on a denial, maybe the approval. */
  goesOn?: boolean;
}

/**
 * A button's words: its label, value and name (Keycloak's consent says Yes and No, named accept and
 * cancel). A name another button of its form shares says nothing of this one: a device page's
 * Confirm and Cancel both named `confirm` (oidc-provider's) are not two approvals.
 */
const text = (b: SubmitButton, form: HtmlForm) =>
  `${b.label} ${b.value ?? ''} ${form.buttons.some((o) => o !== b && o.name === b.name) ? '' : (b.name ?? '')}`;
/**
 * The buttons of `form` that may be pressed as a step or a decision: none about something else (a
 * cookie banner's), nor a way to sign in ("Continue with Google"), which only wayToSignIn follows.
 */
const pressable = (form: HtmlForm) => form.buttons.filter((b) => !WORDS.aside.test(b.label) && !isSignInWay(b.label));

/** Enter sends `form` with no button: it has no submit control at all (none disabled either). */
const sentWithEnter = (form: HtmlForm) => !form.buttons.length && !form.defaultDisabled;

/** The boxes of `form` a person ticks to go on (terms of use), never a scope box. */
const agreementBoxes = (form: HtmlForm) =>
  form.unticked.filter(
    (box) => !box.name.toLowerCase().includes(SCOPE_BOX_NAME) && (box.required || AGREEMENT_BOX.test(box.name)),
  );

/**
 * A page between the sign-in and the decision that asks a box ticked first (terms of use): its
 * form with those boxes ticked, and the button that goes on (accept, continue, yes), as a step
 * whatever the decision: a person accepts the terms to reach the consent, which is then decided.
 */
function agreementStep(forms: HtmlForm[]): Choice | undefined {
  for (const form of forms) {
    const boxes = agreementBoxes(form);
    if (!boxes.length) continue;
    const button = pressable(form).find(
      (b) =>
        (WORDS.approve.test(text(b, form)) || WORDS.step.test(text(b, form)) || WORDS.yes.test(b.label)) &&
        !WORDS.deny.test(text(b, form)),
    );
    // None to go on with: Enter would press the form's default button (a denial), or nothing if disabled.
    if (!button && !sentWithEnter(form)) continue;
    // It goes on: asked to deny, the gate (stepMayApprove) reads the page before it is pressed.
    return { form: { ...form, fields: [...form.fields, ...boxes] }, button, explicit: false, goesOn: true };
  }
  return undefined;
}

function buttonFor(
  forms: HtmlForm[],
  decision: Decision,
  selectors: Partial<Record<Decision, string>>,
  username: string | undefined,
): Choice | undefined {
  const selector = selectors[decision];
  const other = WORDS[decision === 'approve' ? 'deny' : 'approve'];
  for (const form of forms) {
    for (const button of selector ? form.buttons : pressable(form)) {
      const hit = selector
        ? matchesSelector(button, selector)
        : WORDS[decision].test(text(button, form)) && !other.test(text(button, form));
      if (hit) return { form, button, explicit: true };
    }
  }
  // Steps, the first kind found wins: the user's own account (a picker), the answer the decision
  // leans to ("Stay signed in?": yes to approve, no to deny), putting off what can wait, going on.
  const account = username ? new RegExp(accountPattern(username), 'i') : undefined;
  const steps: Array<(b: SubmitButton, form: HtmlForm) => boolean> = [
    (b) => !!account?.test(b.label) && !WORDS.away.test(b.label),
    (b) => WORDS[decision === 'approve' ? 'yes' : 'no'].test(b.label),
    (b, form) => WORDS.postpone.test(text(b, form)),
    (b, form) => WORDS.step.test(text(b, form)),
  ];
  const goingOn = steps.at(-1);
  for (const step of steps)
    for (const form of forms)
      for (const button of pressable(form))
        if (step(button, form) && !other.test(text(button, form)))
          return { form, button, explicit: false, goesOn: step === goingOn };
  // One form with no labelled button (submitted with Enter) is a step too.
  if (forms.length === 1 && sentWithEnter(forms[0])) return { form: forms[0], explicit: false, goesOn: true };
  return undefined;
}

/**
 * On an account picker's page whose entries are plain links (no form: Google's and Entra ID's
 * without script), the link of the configured user's entry; undefined on any other page. A picker
 * naming none of the user's accounts is a missing premise: no other account is picked.
 */
function accountLink(http: Http, html: string, username: string | undefined): string | undefined {
  if (!PICKER.test(pageText(html))) return undefined;
  const account = username ? new RegExp(accountPattern(username), 'i') : undefined;
  const entry = parseLinks(html).find((l) => account?.test(l.label) && !WORDS.away.test(l.label));
  return entry?.href ?? accountNotListed(http);
}

/**
 * A URL a provider's page gives (a form's action, a Location) resolved against the page's. One that
 * is no URL reference leaves the driver nowhere to go: its trouble, said as such (not a crash).
 */
function resolved(reference: string, page: string, what: string): string {
  if (!URL.canParse(reference, page))
    throw new HarnessError(
      `${what} of the provider's page at ${new URL(page).pathname} is not a URL: ${reference.slice(0, 200)}`,
    );
  return new URL(reference, page).href;
}

/** Where and how a browser sends `form` from the page at `url`: a GET form's fields go in the query. */
function submission(
  form: HtmlForm,
  url: string,
  values: Record<string, string>,
  button?: SubmitButton,
): [string, string, URLSearchParams | undefined] {
  const action = resolved(form.action || url, url, "the form's action");
  const body = formData(form, values, button);
  return form.method === 'get' ? [`${action.split('?')[0]}?${body}`, 'GET', undefined] : [action, 'POST', body];
}

/** Does the page have a password field (anywhere: the caller knows it has no form)? */
function asksPassword(html: string): boolean {
  for (const [name, attrs] of openingTags(html))
    if (name === 'input' && (attrs.type ?? '').toLowerCase() === 'password') return true;
  return false;
}

export function createBrowser(http: Http, config: TargetConfig): Browser {
  const jar = new CookieJar(undefined, { rejectPublicSuffixes: false, allowSpecialUseDomain: true });
  const d = { ...DEFAULTS, ...config.driver };
  const redirectUris = redirectUrisOf(config);
  /** A redirect here is the hand-over to the application: kept, never followed. */
  const leaves = (url: string) => handsOverToAny(url, redirectUris) || http.leaves(url) !== undefined;
  /**
   * A sign-in went through with this jar in an earlier visit (its password not refused):
   * its session may live on for the visits after it. Not set when the password only went out: a
   * refusal (said once for the run) must not make a later journey read as signed in.
   */
  let session = false;
  /** The password's answer whose visit ended the check's alone (sign-in.ts, Unsettled): a later visit settles it. */
  let unsettled: Unsettled | undefined;

  const request = async (url: string, method: string, body?: URLSearchParams, what?: string): Promise<HttpResponse> => {
    const cookie = await jar.getCookieString(url);
    // A form's action off the provider is not submitted (http.follow refuses it): the driver's trouble.
    const response = await http.follow(url, {
      method: method.toUpperCase(),
      ...(body ? { form: body } : {}),
      headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) },
      ...(what ? { leaving: { what } } : {}),
    });
    for (const c of response.headers.getSetCookie()) await jar.setCookie(c, url, { ignoreError: true });
    return response;
  };

  /**
   * A page this driver cannot play (`what`), said with `advice`; but registration fills its form
   * over HTTP whatever the driver: under the browser driver, advice to switch would mislead.
   */
  const beyondForms = (what: string, advice: string): never => {
    throw new HarnessError(
      `${what}: ${config.driver?.kind === 'browser' ? 'this check fills HTML forms over HTTP, which the browser driver does not play for it' : advice}`,
    );
  };

  /** The sign-in form: none on a page that asks only for a new password (needs-person.ts says it). */
  const signInForm = (forms: HtmlForm[], html: string) =>
    asksNewPassword(html)
      ? undefined
      : (forms.find((f) => f.fields.some((x) => x.name === d.passwordField)) ??
        forms.find((f) => f.fields.some((x) => x.type === 'password')));
  /**
   * A form whose step grants nothing: the sign-in's (a password or a username field), or the device
   * code's entry (a user-code field a person sees, the code not sent yet).
   */
  const grantsNothing = (form: HtmlForm, codeSent: boolean) =>
    form.fields.some((f) => f.type === 'password') ||
    identifierField(form, d.loginField) !== undefined ||
    (!codeSent && form.fields.some((f) => USER_CODE_NAME.test(f.name) && f.type !== 'hidden'));
  /** The form of a page that asks for the username before the password (identifier-first sign-in). */
  const usernameForm = (forms: HtmlForm[]) => {
    for (const form of forms) {
      const field = identifierField(form, d.loginField);
      if (field) return { form, field };
    }
    return undefined;
  };

  return {
    async browse(startUrl, decision, fill, { malformed, refusable, authorizing = false } = {}) {
      let url = startUrl;
      /** This authorization's redirect_uri (a check may ask with one the config does not list). */
      const asked = URL.canParse(startUrl) ? new URL(startUrl).searchParams.get('redirect_uri') : null;
      let method = 'GET';
      let body: URLSearchParams | undefined;
      /** The form being submitted, named in the refusal when its action leaves the provider. */
      let what: string | undefined;
      let signedIn = false;
      /** The username alone went out (identifier-first sign-in): the password comes on a later page. */
      let identified = false;
      /** The credentials (or the username alone) went out and no page has answered them yet (redirects are followed first). */
      let answering: 'username' | 'password' | undefined;
      /**
       * A link on the page that answered the password was followed: the sign-in form again after it is
       * the password refused still; any other answer (a 400 error page) is the link's, not the password's.
       */
      let passwordAgain = false;
      /** The page the credentials were sent from ran a script (this driver runs none). */
      let scriptedSignIn = false;
      let decided = false;
      /** A form carrying the user code went out (the device page's). */
      let codeSent = false;
      /** An interstitial's continuation was followed (continuationGranted). */
      let linkFollowed = false;
      /** Something besides the sign-in was pressed or followed (AuthorizeOutcome.stepped). */
      let stepped = false;
      /**
       * The visit is on its way to the sign-in: an authorization (no consent before it), or any visit
       * once it reached the sign-in path (a redirect there, or a page after it). Not a device page
       * met before it (the code may come first), nor the registration page.
       */
      let towardSignIn = authorizing;
      /** A device page's visit carries the user code in its URL (devicePageUrl): the code went out already. */
      const codeInUrl = !authorizing && URL.canParse(startUrl) && new URL(startUrl).searchParams.has('user_code');
      /**
       * The visit ends (`handedOver`: with the hand-over), the credentials out and not refused: the
       * jar holds the session, the run knows a sign-in works. Past a link from a page of links only
       * that answered the password, sign-in.ts's stillUnsettled decides (`own`: a page this driver
       * cannot play, beside the requests the provider may refuse).
       */
      const through = (handedOver = false, own = false) => {
        const settles = decided || handedOver;
        if (stillUnsettled(http, unsettled, { settles, own: own || !!malformed || !!refusable, codeSent })) return;
        const settled = unsettled !== undefined;
        unsettled = undefined;
        if (!signedIn && !settled) return;
        signedInOnce(http);
        session = true;
      };
      /** What the journey did, where it ended (a refused sign-in never gets here: it throws). */
      const journey = (response: HttpResponse, redirect?: URL): Journey => {
        through(!!redirect);
        const consentSeen = consentShown(http);
        return {
          ...(redirect ? { redirect } : {}),
          response,
          decided,
          codeSent,
          signedIn: session,
          stepped,
          consentSeen,
        };
      };
      // A form submitted twice means the provider sent us back (a wrong code, an error): stop there.
      const submitted = new Set<string>();
      /**
       * The page a script draws (no form, a script) that refreshed us on: its refresh is for a client
       * running no script (its <noscript>'s, to a "JavaScript required" page), so a page with no
       * form past it is still that script's (review 14: the advice to use the browser was lost).
       */
      let drawnAt: string | undefined;
      /** Refreshes followed in this visit: bounded by their own count, not taking the steps'. */
      let refreshes = 0;
      for (let step = 0; step < MAX_STEPS + refreshes; step++) {
        const response = await request(url, method, body, what);
        towardSignIn ||= URL.canParse(url) && samePath(new URL(url).pathname, d.signInPath);
        const onward = onwardOf(response);
        if (onward) {
          const next = resolved(onward.to, url, onward.what);
          if (leaves(next)) {
            const away = http.leaves(next);
            if (away && !decided)
              goingOnElsewhere(
                http,
                new URL(next),
                away,
                { redirectUris, asked, malformed },
                signedIn ? 'consent' : 'sign-in',
              );
            continuationGranted(decision, decided, linkFollowed, new URL(next));
            return journey(response, new URL(next));
          }
          const refresh = onward.what !== 'the Location';
          if (refresh && ++refreshes > MAX_STEPS)
            throw new HarnessError(refreshedRoundAndRound(new URL(response.url || url), new URL(next)));
          const drawn = refresh && !decided && /<script\b/i.test(response.text);
          drawnAt = drawn && !parseForms(response.text).length ? new URL(response.url || url).pathname : undefined;
          // A 307 or 308 (a front routing the sign-in's POST on): the same form again, on the provider only (leaves, above).
          if (!onward.sameRequest) [method, body, what] = ['GET', undefined, undefined];
          url = next;
          continue;
        }
        if (answering) refusedIfClientError(http, response, scriptedSignIn);
        // Media types are case-insensitive (RFC 9110 §8.3.1): `TEXT/HTML` is a page too.
        if (!/html/i.test(response.headers.get('content-type') ?? '')) return journey(response);
        const forms = parseForms(response.text);
        const at = new URL(response.url || url).pathname;
        const drawnBy = /<script\b/i.test(response.text) ? at : drawnAt;
        // Sign-in fields in no form, sent by a script's control (a <div role=button>), and a page
        // whose script draws the sign-in or consent (a sign-in application) are beyond an HTTP
        // client: the harness's limit, said as such, not the provider's failure. Met before any
        // credentials went out, such a page is the way in of every sign-in: one cause of the run,
        // said once (signInScripted). Registration fills its forms over HTTP whatever the driver:
        // there, advice to switch would mislead (beyondForms).
        const unplayable =
          !forms.length && !decided && !signedIn && asksPassword(response.text)
            ? {
                what: `the provider's sign-in page at ${at} has its fields in no form (a script sends them, from a control such as a <div role=button>)`,
                advice: 'the form driver cannot submit it; use driver: browser',
              }
            : !forms.length && !decided && drawnBy !== undefined
              ? {
                  what: `the provider's page at ${drawnBy} has no form (a script draws it)`,
                  advice: 'use driver: browser',
                }
              : undefined;
        if (unplayable) {
          // The error page (4xx, 5xx) answering a request a check malformed on purpose, a script on it, is
          // that check's to judge; a 2xx page may be the sign-in itself: the check errs alone below.
          if (malformed && response.status >= 400) return journey(response);
          // An error page (4xx, 5xx) is no way in, nor may be a page answering a request the provider
          // may lawfully refuse (AuthorizeOptions.refusable) or one a check malformed: the check it answers errs alone.
          const ordinary = config.driver?.kind !== 'browser' && !malformed && !refusable && response.status < 400;
          const beyond = () => {
            // A page after the password (a consent drawn by a script) is past the sign-in, unsettled
            // when it came by a link from a page of links only that answered the password (a
            // refusal's "OK" as well as an interstitial's): a later visit settles it.
            through(false, true);
            // After the sign-in, an authorization's consent drawn by a script: one cause of the run, said once.
            if (ordinary && authorizing && (session || unsettled))
              consentScripted(http, unplayable.what, unplayable.advice);
            return beyondForms(unplayable.what, unplayable.advice);
          };
          // A page past the username alone (identifier-first: the password page) is still the way in.
          if (ordinary && !signedIn && !session && !unsettled)
            signInScripted(
              http,
              unplayable.what,
              unplayable.advice,
              towardSignIn || asksPassword(response.text),
              beyond,
            );
          beyond();
        }
        const login = signInForm(forms, response.text);
        const identifier = !login && !signedIn ? usernameForm(forms) : undefined;
        // The sign-in form again, in answer to the credentials: refused (a 200 page saying so).
        if (login && (answering === 'password' || passwordAgain))
          signInRefused(http, `status ${response.status}, its sign-in form again`);
        passwordAgain = false;
        // The username form again, in answer to the username alone (an unknown user): refused too.
        if (identifier && answering === 'username')
          signInRefused(http, `status ${response.status}, its username form again`);
        /** This page is the answer to the password itself, not a page a redirect led to. */
        const answersPassword = answering === 'password' && method === 'POST';
        /** The password's answer, redirected or not: a link it offers still answers the password. */
        const afterPassword = answering === 'password';
        answering = undefined;
        // A second factor, a CAPTCHA: nothing is guessed, nothing more is sent.
        const person = decided ? undefined : needsPerson(response.text);
        if (person) signInNeedsPerson(http, person);
        // The username alone first; the page that answers it asks for the password.
        if (identifier && !identified) {
          signInMetAgain(http, unsettled);
          const { username } = signInUser(http, config);
          identified = true;
          answering = 'username';
          scriptedSignIn = /<script\b/i.test(response.text);
          what = "the username form's action";
          [url, method, body] = submission(identifier.form, url, { [identifier.field.name]: username });
          continue;
        }
        if (login && !signedIn) {
          // A later visit meeting the sign-in form again: the unsettled password was not accepted.
          signInMetAgain(http, unsettled);
          const user = signInUser(http, config);
          const loginName =
            login.fields.find((f) => f.name === d.loginField)?.name ??
            login.fields.find((f) => ['text', 'email'].includes(f.type))?.name ??
            // A password page after the username page may ask for the password alone.
            (identified ? undefined : d.loginField);
          const passwordName =
            login.fields.find((f) => f.name === d.passwordField || f.type === 'password')?.name ?? d.passwordField;
          signedIn = true;
          answering = 'password';
          scriptedSignIn = /<script\b/i.test(response.text);
          what = "the sign-in form's action";
          // A box the sign-in form wants ticked (terms of use) is ticked, as by a person signing in.
          [url, method, body] = submission({ ...login, fields: [...login.fields, ...agreementBoxes(login)] }, url, {
            ...(loginName ? { [loginName]: user.username } : {}),
            [passwordName]: user.password,
          });
          continue;
        }
        // After a denial nothing more is pressed; an approval may need a second one (the device
        // page's confirmation, then the consent page), but never a mere step after it.
        const others = forms.filter((f) => f !== login);
        /** The decision (or the step towards it) the driver takes among `forms`' buttons. */
        const choose = (forms: HtmlForm[]): Choice | undefined =>
          buttonFor(forms, decision, { approve: d.approveSelector, deny: d.denySelector }, config.user?.username);
        const decide = () => choose(others);
        /** Asked to deny, why a step on this page may be the approval (sign-in.ts), undefined when it cannot. */
        const mayApprove = (terms = false) =>
          stepMayApprove({ html: response.text, url }, startUrl, redirectUris, codeSent || codeInUrl, terms);
        /** Asked to deny, the step about to be taken that may be the approval (`why`): nothing pressed. */
        const stop = (step: Choice, why: string): never => {
          through();
          throw noWayToDeny(
            url,
            step.button ? step.button.label || (step.button.value ?? '') : 'a form sent with Enter',
            why,
          );
        };
        /**
         * A form the page sends by itself once loaded (html.ts, submitsItself: node-oidc-provider's
         * form_post of a device page's code), on a page that names no grant: a browser sends it with
         * nobody pressing anything, so sending it is no person's approval, whatever the decision.
         */
        const sentByItself = (form: HtmlForm) =>
          submitsItself(response.text, form) && namesTheGrant(response.text, url, startUrl, redirectUris) === undefined;
        const agreement: Choice | undefined = decided ? undefined : agreementStep(others);
        // Asked to deny, an agreement step whose button grants (an "I agree" box beside Authorize, not
        // Accept or Continue), or on a page whose terms reading is the consent's (stepMayApprove), is
        // the consent: its boxes ticked, as a person must for the form to be sent, then Deny; with no
        // Deny, nothing is pressed. Terms of use (Accept, Decline) name no grant: accepted, to reach the consent.
        const agreementWhy: string | undefined =
          agreement && decision === 'deny'
            ? agreement.button && WORDS.grant.test(text(agreement.button, agreement.form))
              ? 'its words grant'
              : grantsNothing(agreement.form, codeSent)
                ? undefined
                : mayApprove(true)
            : undefined;
        const denial: Choice | undefined = agreementWhy !== undefined ? decide() : undefined;
        if (agreement && agreementWhy !== undefined && !denial?.explicit) stop(agreement, agreementWhy);
        const found: Choice | undefined =
          decided && decision === 'deny'
            ? undefined
            : denial?.explicit
              ? { ...denial, form: { ...denial.form, fields: [...denial.form.fields, ...agreementBoxes(denial.form)] } }
              : (agreement ?? decide());
        const choice: Choice | undefined = decided && !found?.explicit ? undefined : found;
        // Asked to deny, a step that may be the approval (sign-in.ts, stepMayApprove) is never taken;
        // the sign-in's form and the device code's entry form grant nothing, and an agreement step
        // was read above (terms of use).
        const approves =
          decision === 'deny' &&
          choice?.goesOn &&
          choice !== agreement &&
          !grantsNothing(choice.form, codeSent) &&
          !sentByItself(choice.form)
            ? mayApprove()
            : undefined;
        if (choice && approves !== undefined) stop(choice, approves);
        if (!choice) {
          // Ways to sign in are a choice only before the sign-in, as in the browser driver.
          const link = decided ? undefined : accountLink(http, response.text, config.user?.username);
          const way =
            decided || link || signedIn || identified
              ? undefined
              : wayToSignIn(http, waysOf(forms, response.text), url, d.signInPath);
          const entry = link ?? (way && !way.form ? way.href : undefined);
          if (entry && !submitted.has(`link ${entry}`)) {
            submitted.add(`link ${entry}`);
            stepped ||= entry === link;
            [url, method, body, what] = [resolved(entry, url, 'the link'), 'GET', undefined, 'the link'];
            continue;
          }
          if (way?.form && !submitted.has(`way ${way.href}|${way.label}`)) {
            submitted.add(`way ${way.href}|${way.label}`);
            what = "the action of the way to sign in's form";
            [url, method, body] = submission(way.form, url, {}, way.button);
            continue;
          }
          if (!decided && awaitsEmail(response.text)) signInNeedsPerson(http, 'a link sent by e-mail');
          // Signed in (in this visit or, the session living on, an earlier one), a page of links only:
          // an interstitial's one link that goes on (sign-in.ts).
          const onward =
            (signedIn || session || unsettled) &&
            !decided &&
            !forms.length &&
            mayContinue(decision, codeSent || codeInUrl)
              ? continuation(http, response.text, url, d.signInPath, decision)
              : undefined;
          if (onward && !submitted.has(`link ${onward.href}`)) {
            const named = decision === 'deny' ? namesTheGrant(response.text, url, startUrl, redirectUris) : undefined;
            if (named !== undefined) {
              through();
              throw consentOfLinks(url, named);
            }
            // A link that may approve for another reason (its words, or leading elsewhere than the
            // authorization on a page asking nothing) is not followed either; the page proves no sign-in.
            const may =
              decision === 'deny' ? denyMayGrant(response.text, url, startUrl, redirectUris, onward) : undefined;
            if (may !== undefined) throw consentOfLinks(url, may);
            submitted.add(`link ${onward.href}`);
            linkFollowed = stepped = true;
            if (afterPassword)
              unsettled = { answer: { html: response.text, url, status: response.status }, followed: onward.label };
            // The sign-in form coming back after that link is the password refused still.
            passwordAgain = afterPassword;
            [url, method, body, what] = [resolved(onward.href, url, 'the link'), 'GET', undefined, 'the link'];
            continue;
          }
          // The password answered by a page with nothing to go on with ("the password is incorrect").
          // One whose links approve may as well be a consent of links: said once, never a sign-in.
          if (answersPassword && !forms.length) {
            if (decidedByLinks(response.text, url, d.signInPath))
              answeredByLinks(http, { html: response.text, url, status: response.status });
            signInRefused(http, `status ${response.status}, a page with no form`);
          }
          // The control it would press disabled until a script enables it (terms to scroll to the
          // end): never pressed here. Another disabled control (a refusal's "Send feedback") is no cause.
          if (!decided && disabledForScript(response.text, others, (forms) => choose(forms)?.button))
            beyondForms(
              `the provider's page at ${at} keeps its ${decision} control disabled until its script enables it`,
              'the form driver runs no script and presses no disabled control; use driver: browser',
            );
          return journey(response);
        }
        const signature = `${choice.form.action}|${choice.button?.name}=${choice.button?.value}|${choice.form.fields.map((f) => f.name).join(',')}`;
        if (submitted.has(signature)) return journey(response);
        submitted.add(signature);
        decided ||= choice.explicit;
        stepped = true;
        if (choice.explicit) consentMet(http);
        const values = fill?.(choice.form) ?? {};
        codeSent ||= choice.form.fields.some((f) => USER_CODE_NAME.test(f.name) && (values[f.name] ?? f.value));
        what = `the action of the form with the ${choice.explicit ? decision : 'next step'} button`;
        const form = choice.explicit && decision === 'approve' ? withScopesTicked(choice.form) : choice.form;
        [url, method, body] = submission(form, url, values, choice.button);
      }
      throw new HarnessError(
        `the provider's pages did not settle within ${MAX_STEPS} redirects and form posts, starting at ${new URL(startUrl).pathname}`,
      );
    },
  };
}

/**
 * The device verification page with the user code in its query: the page the provider named
 * (`page`, its verification_uri: Okta's /activate, Keycloak's /realms/x/device) when the harness
 * may visit it, else the service's GET /oauth/device. One named off the target's origins is never
 * visited (DEV-VERIFICATION-PAGE says so).
 */
export function devicePageUrl(http: Http, userCode: string, page?: string): string {
  // leaves() also refuses what is no plain http(s) URL.
  const visited = page !== undefined && http.leaves(page) === undefined;
  const url = new URL(visited ? page : `${http.baseUrl}${DEFAULTS.devicePath}`);
  url.searchParams.set('user_code', userCode);
  return url.href;
}

/** Fill the user-code field when the page did not prefill it from the query. */
const userCodeFill = (userCode: string) => (form: HtmlForm) =>
  Object.fromEntries(form.fields.filter((f) => USER_CODE_NAME.test(f.name) && !f.value).map((f) => [f.name, userCode]));

export function createFormDriver(http: Http, config: TargetConfig): Driver {
  const browser = createBrowser(http, config);
  const device = async (userCode: string, decision: Decision, page?: string) => {
    const url = devicePageUrl(http, userCode, page);
    expectDeviceDecided(decision, await browser.browse(url, decision, userCodeFill(userCode)), url);
  };
  return {
    kind: 'form',
    async authorize(authorizeUrl, decision, options) {
      return browser.browse(authorizeUrl, decision, undefined, { ...options, authorizing: true });
    },
    approveDevice: (userCode, page) => device(userCode, 'approve', page),
    denyDevice: (userCode, page) => device(userCode, 'deny', page),
    async advanceClock() {
      throw new CheckSkipped('the target offers no clock control');
    },
  };
}
