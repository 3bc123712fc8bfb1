/**
 * Just enough HTML reading to drive a sign-in or consent page of any provider: the forms, their
 * action and method, their inputs (hidden ones carry the CSRF token) and their submit buttons.
 */
import { SCOPE_BOX_NAME } from './defaults.js';
import { own } from '../shared/own.js';
import type { HttpResponse } from '../types.js';

export interface FormField {
  name: string;
  value: string;
  type: string;
  /** The page will not submit the form without it (a box to tick before going on). */
  required?: boolean;
}

export interface SubmitButton {
  tag: 'button' | 'input';
  name?: string;
  value?: string;
  /** The button's visible text (or its value for input buttons). */
  label: string;
  attrs: Record<string, string>;
  /** It is inside `<noscript>`: a browser running scripts does not show it. */
  noscript?: true;
}

export interface HtmlForm {
  action: string;
  method: string;
  attrs: Record<string, string>;
  fields: FormField[];
  buttons: SubmitButton[];
  /** Checkboxes not ticked: a browser leaves them out of the body until the user ticks them. */
  unticked: FormField[];
  /**
   * Its default (first) submit control is disabled: Enter submits nothing (HTML's implicit
   * submission) until a script enables it, so the form is never sent without a button.
   */
  defaultDisabled?: true;
  /** Its submit controls kept disabled (for a script to enable), never pressed: not among `buttons`. */
  disabled?: SubmitButton[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1].toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return own(ENTITIES, ref.toLowerCase()) ?? whole;
  });
}

export function parseAttributes(tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  // Only the `>` goes: a `/` before it is an unquoted value's last character (`href=/x/`), as HTML
  // reads it; after white space or a quote it is no name and no value, and the loop passes it by.
  const body = tag.replace(/^<[^\t\n\f\r />]*/, '').replace(/>$/, '');
  // An unquoted value runs to a space: a quote in it is part of it, as tagEnd reads it.
  const re = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    attrs[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

/**
 * Where a tag may start: `<name` or `</name`, the name as HTML reads it: a letter, then anything to
 * HTML's white space, `/` or `>` (`my-el.x`, `a:b`, `x-é`; before, a name of [\w-] only stopped at
 * the `.` and the reader read on inside the tag's quoted values: review 19).
 */
const TAG_START = /<(\/?)([a-z][^\t\n\f\r />]*)/gi;
/** HTML's white space (tab, line feed, form feed, carriage return, space), by character code. */
const SPACE = new Set([9, 10, 12, 13, 32]);
const [GT, SLASH, EQUALS] = [0x3e, 0x2f, 0x3d];

/**
 * Characters the tag reader has passed over, counted where it passes them (the test of its
 * linearity reads it: a count, not a clock).
 */
export const tagReading = { steps: 0 };

/**
 * Where a tag whose name ends at `from` ends: past its `>`, read as HTML's attribute states read it:
 * a name (an `=` first is part of it), then after `=` and any space a value, quoted and read whole
 * (a `<` or `>` in it is text: `title="<meta …>"` is no tag) or unquoted to a space or `>` (a quote
 * in it is part of it: `href=/h?t='x>` ends at its `>`). Undefined when it is never closed (a
 * browser drops it at the page's end). One pass forward: each character passed over once.
 */
function tagEnd(html: string, from: number): number | undefined {
  const at = (i: number) => html.charCodeAt(i);
  const runs = (i: number, stop: (code: number) => boolean) => {
    while (i < html.length && !stop(at(i))) i++;
    return i;
  };
  let i = from;
  while (i < html.length) {
    i = runs(i, (c) => !SPACE.has(c) && c !== SLASH);
    if (at(i) === GT) break;
    // An attribute's name, its first character whatever it is.
    i = runs(i + 1, (c) => SPACE.has(c) || c === SLASH || c === GT || c === EQUALS);
    i = runs(i, (c) => !SPACE.has(c));
    if (at(i) !== EQUALS) continue;
    i = runs(i + 1, (c) => !SPACE.has(c));
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      i = close < 0 ? html.length : close + 1;
    } else i = runs(i, (c) => SPACE.has(c) || c === GT);
  }
  tagReading.steps += Math.min(i + 1, html.length) - from;
  return i < html.length ? i + 1 : undefined;
}

/** A tag read: `[tag, closing slash, name]` at `index`, as a pattern's match would give them. */
type TagMatch = [tag: string, closing: string, name: string] & { index: number };

/**
 * Each tag of a page in turn (`exec` and `lastIndex`, as a global pattern is used): `<name …>` or
 * `</name …>`, read by tagEnd. A tag never closed ends the reading. One linear pass whatever the
 * page holds: nothing is read twice. Before, a pattern that could not span a `<` (so as to stay
 * linear) cut a tag at a `<` in a quoted value and read the text after it as a tag: a page could
 * send the harness elsewhere with `<div title="<meta http-equiv='refresh' …>">`.
 */
function tagReader() {
  return {
    lastIndex: 0,
    exec(html: string): TagMatch | null {
      TAG_START.lastIndex = this.lastIndex;
      const m = TAG_START.exec(html);
      tagReading.steps += (m ? TAG_START.lastIndex : html.length) - this.lastIndex;
      const end = m ? tagEnd(html, TAG_START.lastIndex) : undefined;
      if (!m || end === undefined) {
        this.lastIndex = html.length;
        return null;
      }
      this.lastIndex = end;
      return Object.assign([html.slice(m.index, end), m[1], m[2]] as const, { index: m.index }) as TagMatch;
    },
  };
}

const stripTags = (html: string) =>
  decodeEntities(html.replace(/<[^<>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();

const CONTROLS = new Set(['input', 'select', 'textarea', 'button']);

/** Elements whose text is raw (script data, RAWTEXT, RCDATA): a tag or a `<!--` written there is text. */
const RAW_ELEMENTS = ['script', 'style', 'textarea', 'title', 'xmp'];
const RAW = new Set(RAW_ELEMENTS);

/** Where the raw text of a `name` element opened before `from` ends: past its end tag, or undefined (never closed). */
function afterRawText(html: string, name: string, from: number): number | undefined {
  const end = new RegExp(`</${name}[\\s/>]`, 'gi');
  end.lastIndex = from;
  const after = end.exec(html) ? end.lastIndex : undefined;
  tagReading.steps += (after ?? html.length) - from;
  return after;
}

/**
 * Each opening tag of the page (not one in a comment, nor one written in a raw element's text: a
 * script's string, a textarea's value, a title), its name (lower case) and attributes, in one
 * linear pass: a raw element's text is skipped to its end tag, as a browser reads it (review 14: a
 * session-timeout script's `'<meta http-equiv="refresh">'` was followed at once).
 */
export function* openingTags(html: string): Generator<[name: string, attrs: Record<string, string>]> {
  const page = stripped(html);
  const tags = tagReader();
  for (let m = tags.exec(page); m; m = tags.exec(page)) {
    if (m[1]) continue;
    const name = m[2].toLowerCase();
    const attrs = parseAttributes(m[0]);
    if (RAW.has(name)) tags.lastIndex = afterRawText(page, name, tags.lastIndex) ?? page.length;
    yield [name, attrs];
  }
}

/**
 * Whether an element submits its form when pressed, as HTML reads its `type`: a button unless it is
 * `reset` or `button` (missing, and any type HTML does not know, `<button type=image>`, is submit),
 * an input of type `submit` or `image`.
 */
export function isSubmit(name: string, attrs: Record<string, string>): boolean {
  const type = (attrs.type ?? '').toLowerCase();
  return name === 'button'
    ? type !== 'reset' && type !== 'button'
    : name === 'input' && ['submit', 'image'].includes(type);
}

/** `form` as its script may make it: its disabled submit controls enabled, after its live ones. */
const enabled = (form: HtmlForm): HtmlForm =>
  form.disabled ? { ...form, buttons: [...form.buttons, ...form.disabled], defaultDisabled: undefined } : form;

/**
 * Does the page keep one of its decision controls disabled for its script to enable (a consent's
 * Authorize until its terms are scrolled to the end)? `press` is the driver's own choice among
 * forms' buttons: asked of `forms` (the page's, parseForms) with their disabled controls enabled,
 * it picks one of those, and the page has a `<script>`. A disabled control the driver would not
 * press (Google's "Send feedback" on a refusal) is no decision kept from it (review hform22).
 */
export function disabledForScript(
  html: string,
  forms: HtmlForm[],
  press: (forms: HtmlForm[]) => SubmitButton | undefined,
): boolean {
  const pressed = forms.some((f) => f.disabled) ? press(forms.map(enabled)) : undefined;
  if (!pressed || !forms.some((f) => f.disabled?.includes(pressed))) return false;
  for (const [name] of openingTags(html)) if (name === 'script') return true;
  return false;
}

/** Elements whose content is no text a person reads. */
const UNREAD = new Set(['script', 'style', 'template', 'noscript']);

/** Elements with no content (a `hidden` one among them hides nothing). */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
/** A cookie banner's or preference centre's container, by its id or class (OneTrust, Cookiebot, cookie-banner). */
const BANNER = /cookie|onetrust|gdpr/i;

/**
 * Is an element not shown as the page's own content: `hidden`, aria-hidden, `display: none` or
 * `visibility: hidden` in its style, a dialog not open, a cookie banner?
 */
function unshown(name: string, attrs: Record<string, string>): boolean {
  if (VOID.has(name)) return false;
  if ('hidden' in attrs || attrs['aria-hidden']?.trim().toLowerCase() === 'true') return true;
  if (/display\s*:\s*none|visibility\s*:\s*hidden/i.test(attrs.style ?? '')) return true;
  if (name === 'dialog' && !('open' in attrs)) return true;
  return BANNER.test(`${attrs.id ?? ''} ${attrs.class ?? ''}`);
}

/**
 * The text a person reads on the page (scripts and styles left out), whitespace collapsed; one pass.
 * `shown`: only what the page shows as its own content (unshown: hidden elements, closed dialogs,
 * cookie banners left out; an element's nesting counted by its name). `noscript`: `<noscript>`'s
 * text read too, as a client running no script is shown it.
 */
export function pageText(html: string, options: { shown?: boolean; noscript?: boolean } = {}): string {
  return textOf(stripped(html), options);
}

/** pageText of a page already without its comments (a second pass could open one its removal joined). */
function textOf(html: string, { shown = false, noscript = false } = {}): string {
  const parts: string[] = [];
  let unread: { name: string; depth: number } | undefined;
  let from = 0;
  const tags = tagReader();
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    if (!unread) parts.push(html.slice(from, m.index));
    from = tags.lastIndex;
    const name = m[2].toLowerCase();
    if (unread) {
      if (unread.name === name && m[1]) unread.depth--;
      else if (unread.name === name && !UNREAD.has(name) && !m[0].endsWith('/>')) unread.depth++;
      if (!unread.depth) unread = undefined;
    } else if (
      !m[1] &&
      ((UNREAD.has(name) && !(noscript && name === 'noscript')) || (shown && unshown(name, parseAttributes(m[0]))))
    )
      unread = { name, depth: 1 };
  }
  if (!unread) parts.push(html.slice(from));
  return decodeEntities(parts.join(' ')).replace(/\s+/g, ' ').trim();
}

/** The page's links: each `<a href>`'s target and the text a person reads in it. One pass over the tags. */
export function parseLinks(source: string): Array<{ href: string; label: string }> {
  const html = stripped(source);
  const links: Array<{ href: string; label: string }> = [];
  let open: { href: string; from: number } | undefined;
  const tags = tagReader();
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    if (m[2].toLowerCase() !== 'a') continue;
    if (m[1] && open) links.push({ href: open.href, label: textOf(html.slice(open.from, m.index)) });
    if (m[1]) open = undefined;
    else {
      const { href } = parseAttributes(m[0]);
      open = href !== undefined ? { href, from: tags.lastIndex } : undefined;
    }
  }
  return links;
}

interface Control {
  kind: string;
  attrs: Record<string, string>;
  /** A button's text between its tags. */
  label?: string;
  noscript?: true;
}

/** Add one control (field or submit button) to a form, as a browser would submit it. */
function addControl(form: HtmlForm, { kind, attrs: a, label, noscript }: Control): void {
  const hides = noscript ? { noscript } : {};
  // A disabled control is sent by no browser (HTML: not a successful control), nor pressed by anyone
  // until a script enables it (a consent's Authorize, once its terms are scrolled to the end): a
  // disabled submit control is kept aside, for disabledForScript to read.
  if (isSubmit(kind, a)) {
    const button: SubmitButton =
      kind === 'button'
        ? { tag: 'button', name: a.name, value: a.value, label: stripTags(label ?? ''), attrs: a, ...hides }
        : { tag: 'input', name: a.name, value: a.value, label: a.value ?? '', attrs: a, ...hides };
    if (!('disabled' in a)) form.buttons.push(button);
    else {
      if (!form.buttons.length) form.defaultDisabled = true;
      (form.disabled ??= []).push(button);
    }
    return;
  }
  if ('disabled' in a || kind === 'button' || !a.name) return;
  const type = (a.type ?? (kind === 'input' ? 'text' : kind)).toLowerCase();
  const field = {
    name: a.name,
    value: a.value ?? (type === 'checkbox' ? 'on' : ''),
    type,
    ...('required' in a ? { required: true } : {}),
  };
  if ((type === 'checkbox' || type === 'radio') && !('checked' in a)) {
    if (type === 'checkbox') form.unticked.push(field);
    return;
  }
  form.fields.push(field);
}

/**
 * The page's forms, each with the controls between its tags (a form never closed is no form, a
 * `<form>` inside an open one is ignored, as browsers do) and the controls placed elsewhere that
 * name it (`<button form="id">`, as some providers' pages do). One pass over the tags.
 */
export function parseForms(source: string): HtmlForm[] {
  const html = stripped(source);
  const forms: HtmlForm[] = [];
  const owned: Control[] = [];
  let open: { form: HtmlForm; controls: Control[] } | undefined;
  // A button collects its text up to its closing tag; the controls inside it are not the form's.
  let button: { control: Control; from: number; inForm: boolean } | undefined;
  /** How many `<noscript>` are open around the tag read. */
  let noscripts = 0;
  const tags = tagReader();
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    const [tag, closing, rawName] = m;
    const name = rawName.toLowerCase();
    if (name === 'noscript' && !button) noscripts = Math.max(0, noscripts + (closing ? -1 : 1));
    if (button) {
      if (closing && name === 'button') {
        button.control.label = html.slice(button.from, m.index);
        if (button.control.attrs.form) owned.push(button.control);
        else if (button.inForm) open?.controls.push(button.control);
        button = undefined;
      }
      continue;
    }
    if (name === 'form') {
      if (!closing && !open) {
        const attrs = parseAttributes(tag);
        const form = { action: attrs.action ?? '', method: (attrs.method ?? 'get').toLowerCase(), attrs };
        open = { form: { ...form, fields: [], buttons: [], unticked: [] }, controls: [] };
      } else if (closing && open) {
        for (const control of open.controls) addControl(open.form, control);
        forms.push(open.form);
        open = undefined;
      }
      continue;
    }
    if (closing || !CONTROLS.has(name)) continue;
    const control: Control = { kind: name, attrs: parseAttributes(tag), ...(noscripts ? { noscript: true } : {}) };
    if (name === 'button') button = { control, from: tags.lastIndex, inForm: !!open };
    else if (control.attrs.form) owned.push(control);
    else open?.controls.push(control);
  }
  for (const control of owned) {
    const form = forms.find((f) => f.attrs.id === control.attrs.form);
    if (form) addControl(form, control);
  }
  return forms;
}

/**
 * Where a comment may open: `<!--`, or a tag, read whole by tagEnd (a `<!--` in its quoted value is
 * text), an element's whose text is raw (script data, RAWTEXT, RCDATA: a `<!--` there is text, as in
 * `document.write("<!--")`) kept whole to its end tag.
 */
const COMMENT_OR_TAG = new RegExp(`<!--|${TAG_START.source}`, 'gi');
/** A comment's end after its opening: `-->`, or `--!>` (HTML ends one there too, as an error). */
const COMMENT_END = /--!?>/g;

/**
 * The page without its comments, as a browser reads them, in one linear pass: every reader of a
 * page's markup (forms, links, text, tags) reads it so, so a commented-out form or link is never
 * pressed and a commented word never read. `<!-->` and `<!--->` are whole empty comments (review
 * 11); one never closed hides the rest of the page. Its result is read once: removing a comment may
 * join `<!` and `--` into a new opening (`<!<!---->--`), which a second pass would take for one.
 */
export function withoutComments(html: string): string {
  const parts: string[] = [];
  let from = 0;
  const opens = new RegExp(COMMENT_OR_TAG.source, 'gi');
  for (let at = 0, m = opens.exec(html); m; at = opens.lastIndex, m = opens.exec(html)) {
    tagReading.steps += opens.lastIndex - at;
    if (m[2] !== undefined) {
      const end = tagEnd(html, opens.lastIndex);
      const raw = end !== undefined && !m[1] && RAW.has(m[2].toLowerCase());
      // A tag never closed, or raw text, to the end of the page: no comment in it.
      const after = raw ? afterRawText(html, m[2], end) : end;
      if (after === undefined) break;
      opens.lastIndex = after;
      continue;
    }
    parts.push(html.slice(from, m.index));
    const after = m.index + 4;
    if (html.startsWith('>', after)) from = after + 1;
    else if (html.startsWith('->', after)) from = after + 2;
    else {
      const end = new RegExp(COMMENT_END.source, 'g');
      end.lastIndex = after;
      const closed = end.exec(html);
      tagReading.steps += (closed ? end.lastIndex : html.length) - after;
      if (!closed) return parts.join('');
      from = end.lastIndex;
    }
    opens.lastIndex = from;
  }
  parts.push(html.slice(from));
  return parts.join('');
}

/** The page last stripped of its comments, and its stripping: see stripped. */
let last: { html: string; page: string } | undefined;

/**
 * withoutComments of `html`, made once for a page however many readers read it (the form driver
 * reads each page with several: a 1 MB page was stripped five times): the last page's stripping
 * is kept, keyed by the page itself (the same string is compared at once).
 */
function stripped(html: string): string {
  if (last?.html !== html) last = { html, page: withoutComments(html) };
  return last.page;
}

/** The longest refresh followed as a way on: a longer one is a page's timeout (a session's), not a redirect. */
export const REFRESH_MAX_SECONDS = 10;

/**
 * Page loads, redirects and form posts one user action may take before a page driver calls it a
 * loop; also the refreshes one visit follows. A count, not a pattern: a "please wait" page may
 * poll between the same two URLs a few times before going on, and a loop whose URL changes each
 * time (`/wait?n=1`, `?n=2`, …) repeats none.
 */
export const MAX_STEPS = 12;

/** What the pages did when a visit's refreshes pass MAX_STEPS: the last one (paths alone, a query may carry a code). */
export const refreshedRoundAndRound = (from: URL, to: URL) =>
  `the provider's pages refresh round and round: more than ${MAX_STEPS} refreshes in one visit, the last ${from.pathname} refreshes to ${to.pathname}`;

/**
 * Characters the refresh reader (refreshOf) has passed over, counted where it passes them: its
 * content is a target's (a header or a tag's attribute, megabytes long), read in one pass; the test
 * of its linearity reads this count, not a clock.
 */
export const refreshReading = { steps: 0 };

/** JavaScript's white space and line terminators, as `trim` and `\s` read them. */
const TRIMMED = /\s/;
const isDigit = (c: string) => c >= '0' && c <= '9';

/** Past the characters from `from` (up to `to`) that `passes` accepts, counted. */
function pastRun(text: string, from: number, passes: (c: string) => boolean, to = text.length): number {
  let at = from;
  while (at < to && passes(text[at])) at++;
  refreshReading.steps += at - from;
  return at;
}
const pastBlank = (text: string, from: number, to = text.length) => pastRun(text, from, (c) => TRIMMED.test(c), to);

/** `url` in any case, read in place. */
const URL_NAME = /url/iy;

/**
 * A refresh's `content` (`N;url=…`, HTML's declarative refresh, the Refresh header's too): its
 * delay in whole seconds and its URL as written, when it sends the page elsewhere within
 * `maxSeconds`; undefined for a refresh of the page itself (no URL) or a later one. Read by hand in
 * one pass (refreshReading counts it), as the patterns and trims it replaces read it.
 */
export function refreshOf(
  content: string,
  maxSeconds = REFRESH_MAX_SECONDS,
): { seconds: number; url: string } | undefined {
  // The delay (its fraction skipped), then `;` or `,`, then `url=` (optional) and the URL.
  const start = pastBlank(content, 0);
  const digits = pastRun(content, start, isDigit);
  if (digits === start) return undefined;
  const seconds = Number(content.slice(start, digits));
  if (seconds > maxSeconds) return undefined;
  let at = pastBlank(
    content,
    pastRun(content, digits, (c) => c === '.' || isDigit(c)),
  );
  if (content[at] === ';' || content[at] === ',') at = pastBlank(content, at + 1);
  URL_NAME.lastIndex = at;
  if (URL_NAME.test(content)) {
    refreshReading.steps += 3;
    const equals = pastBlank(content, at + 3);
    if (content[equals] === '=') at = pastBlank(content, equals + 1);
  }
  // A quoted URL runs to its closing quote (or the end), as HTML reads it.
  const quote = content[at] === '"' || content[at] === "'" ? content[at] : '';
  const from = quote ? at + 1 : at;
  const to = quote ? pastRun(content, from, (c) => c !== quote) : content.length;
  let end = to;
  const first = pastBlank(content, from, to);
  while (end > first && TRIMMED.test(content[end - 1])) end--;
  refreshReading.steps += to - end;
  return first < end ? { seconds, url: content.slice(first, end) } : undefined;
}

/**
 * Where the page sends the browser by its first `<meta http-equiv="refresh">` (refreshOf), its
 * `<noscript>`'s too (a browser running no script follows it). One linear pass, comments left out.
 */
export function metaRefresh(html: string, maxSeconds = REFRESH_MAX_SECONDS): string | undefined {
  for (const [name, attrs] of openingTags(html))
    if (name === 'meta' && attrs['http-equiv']?.trim().toLowerCase() === 'refresh')
      return refreshOf(attrs.content ?? '', maxSeconds)?.url;
  return undefined;
}

/**
 * Where an answer refreshes to within `maxSeconds`: its `Refresh` header first (a browser follows
 * it as it does the tag: review 14), then an HTML page's meta refresh. `what` names it in an error.
 */
export function refreshOfAnswer(
  response: HttpResponse,
  maxSeconds = REFRESH_MAX_SECONDS,
): { to: string; what: string } | undefined {
  const header = refreshOf(response.headers.get('refresh') ?? '', maxSeconds)?.url;
  if (header !== undefined) return { to: header, what: 'the Refresh header' };
  const html = /html/i.test(response.headers.get('content-type') ?? '');
  const meta = html ? metaRefresh(response.text, maxSeconds) : undefined;
  return meta === undefined ? undefined : { to: meta, what: "the page's refresh" };
}

/**
 * Where an answer sends the browser on by itself: a redirect's Location, or a 2xx answer's refresh
 * (refreshOfAnswer: IdentityServer's Redirect page, a sign-in's cookie bounce). RFC 6749 §1.7 lets
 * any way the user-agent has carry the authorization response, not a 302 alone. `what` names it
 * in an error; `sameRequest`, a 307 or 308: the request is sent there again as it was.
 */
/** A redirect that sends the same request again, method and body (RFC 9110 §15.4.8-9); the others a GET. */
export const keepsRequest = (status?: number): boolean => status === 307 || status === 308;

export function onwardOf(response: HttpResponse): { to: string; what: string; sameRequest?: true } | undefined {
  const location = response.headers.get('location');
  if (response.status >= 300 && response.status < 400)
    return location
      ? { to: location, what: 'the Location', ...(keepsRequest(response.status) ? { sameRequest: true as const } : {}) }
      : undefined;
  const refresh = response.status >= 200 && response.status < 300 ? refreshOfAnswer(response) : undefined;
  // A page that refreshes itself (a waiting page polling) is read, not followed round and round.
  if (refresh === undefined || refreshesItself(response.url, refresh.to)) return undefined;
  return refresh;
}

/** Does a refresh to `target` (as written on the page at `at`) load the same page again? */
export function refreshesItself(at: string, target: string): boolean {
  if (!URL.canParse(at) || !URL.canParse(target, at)) return false;
  const [here, there] = [new URL(at), new URL(target, at)];
  here.hash = there.hash = '';
  return here.href === there.href;
}

/** A script sending a form by itself: `form.submit()`, `forms[0].submit()`, `requestSubmit()`. */
const SELF_SUBMIT = /\.(?:request)?[sS]ubmit\(\s*\)/;
const SCRIPT_END = /<\/script\s*>/gi;

/**
 * Does the page send `form` by itself once loaded, as a form_post page does (node-oidc-provider's,
 * Entra's): a browser sends it with nobody pressing anything? Read without its comments: a script
 * of the page calls submit(), each of the form's buttons is inside `<noscript>` (there for a
 * browser running no script), and the page shows no other control (a link, a button, a field to
 * fill) outside `<noscript>`; a script is a `<script>` element or the body's onload. One linear
 * pass; a script's text is skipped whole.
 */
export function submitsItself(html: string, form: HtmlForm): boolean {
  if (!form.buttons.length || form.buttons.some((b) => !b.noscript)) return false;
  const page = stripped(html);
  let submits = false;
  let noscripts = 0;
  const tags = tagReader();
  for (let m = tags.exec(page); m; m = tags.exec(page)) {
    const name = m[2].toLowerCase();
    if (name === 'noscript') noscripts = Math.max(0, noscripts + (m[1] ? -1 : 1));
    if (m[1]) continue;
    if (name === 'script') {
      SCRIPT_END.lastIndex = tags.lastIndex;
      const end = SCRIPT_END.exec(page);
      tagReading.steps += (end ? SCRIPT_END.lastIndex : page.length) - tags.lastIndex;
      submits ||= SELF_SUBMIT.test(page.slice(tags.lastIndex, end ? end.index : page.length));
      tags.lastIndex = end ? SCRIPT_END.lastIndex : page.length;
      continue;
    }
    if (noscripts) continue;
    const attrs = parseAttributes(m[0]);
    // Keycloak's and ADFS's form_post: <body onload="document.forms[0].submit()">.
    if (name === 'body') {
      submits ||= Object.entries(attrs).some(([attr, value]) => attr.startsWith('on') && SELF_SUBMIT.test(value));
      continue;
    }
    const control =
      (name === 'a' && attrs.href !== undefined) ||
      ['button', 'select', 'textarea'].includes(name) ||
      (name === 'input' && (attrs.type ?? '').toLowerCase() !== 'hidden') ||
      attrs.role?.toLowerCase() === 'button';
    if (control) return false;
  }
  return submits;
}

/**
 * A small selector: `tag`, `#id`, `.class`, `[attr]`, `[attr=value]` combined (`button[name=commit][value=Authorize]`),
 * or, when it is none of those, text matched against the button's label or value.
 */
export function matchesSelector(button: SubmitButton, selector: string): boolean {
  const sel = selector.trim();
  if (!/^[\w-]*([#.][\w-]+|\[[^\]]+\])*$/.test(sel) || !/[#.[]/.test(sel)) {
    const needle = sel.toLowerCase();
    return button.label.toLowerCase() === needle || (button.value ?? '').toLowerCase() === needle;
  }
  const tag = /^[\w-]+/.exec(sel)?.[0];
  if (tag && tag.toLowerCase() !== button.tag) return false;
  for (const part of sel.match(/[#.][\w-]+|\[[^[\]]+\]/g) ?? []) {
    if (part[0] === '#' && button.attrs.id !== part.slice(1)) return false;
    if (part[0] === '.' && !(button.attrs.class ?? '').split(/\s+/).includes(part.slice(1))) return false;
    if (part[0] === '[') {
      const [name, value] = attributeSelector(part);
      if (!name) return false;
      const actual = button.attrs[name.toLowerCase()];
      if (actual === undefined || (value !== undefined && actual !== value)) return false;
    }
  }
  return true;
}

/**
 * The form as the user approves it: every scope the page offers as a box is ticked (L130: the user
 * approves the requested scopes; Spring Authorization Server's page lists them unticked). Other
 * boxes ("remember my decision") stay as the page set them: a one-time consent.
 */
export function withScopesTicked(form: HtmlForm): HtmlForm {
  const scopes = form.unticked.filter((box) => box.name.toLowerCase().includes(SCOPE_BOX_NAME));
  return scopes.length ? { ...form, fields: [...form.fields, ...scopes] } : form;
}

/** The form's fields as a body, with the chosen button's name=value appended as a browser does. */
export function formData(form: HtmlForm, values: Record<string, string> = {}, button?: SubmitButton): URLSearchParams {
  const body = new URLSearchParams();
  const overridden = new Set<string>();
  for (const field of form.fields) {
    if (field.name in values) {
      if (!overridden.has(field.name)) body.append(field.name, values[field.name]);
      overridden.add(field.name);
    } else body.append(field.name, field.value);
  }
  for (const [k, v] of Object.entries(values)) if (!overridden.has(k)) body.append(k, v);
  if (button?.name) body.append(button.name, button.value ?? '');
  return body;
}

/** `[name]` or `[name=value]` (value optionally quoted), read without a pattern that could backtrack. */
function attributeSelector(part: string): [string, string | undefined] {
  const inner = part.slice(1, -1);
  const eq = inner.indexOf('=');
  if (eq < 0) return [inner.trim(), undefined];
  return [
    inner.slice(0, eq).trim(),
    inner
      .slice(eq + 1)
      .trim()
      .replace(/^["']|["']$/g, ''),
  ];
}
