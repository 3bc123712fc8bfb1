import { describe, expect, it } from 'vitest';
import {
  disabledForScript,
  formData,
  matchesSelector,
  metaRefresh,
  onwardOf,
  openingTags,
  pageText,
  parseAttributes,
  parseForms,
  parseLinks,
  submitsItself,
  withoutComments,
  type HtmlForm,
} from '../../suites/drivers/html.js';
import type { HttpResponse } from '../../suites/types.js';

const CONSENT = `
<html><body>
<form action="/oauth/authorize" method="post" class="consent">
  <input type="hidden" name="authenticity_token" value="csrf&amp;123">
  <input type="hidden" name="client_id" value='abc'>
  <input type="checkbox" name="remember" checked>
  <input type="checkbox" name="unchecked">
  <input name="disabled_one" value="x" disabled>
  <button type="submit" name="commit" value="approve" class="btn primary">Authorize <b>App</b></button>
  <button type="button">Help</button>
</form>
<form action="/oauth/authorize" method="POST">
  <input type="hidden" name="_method" value="delete">
  <input type="submit" name="commit" value="Deny" id="deny">
</form>
</body></html>`;

describe('form parsing', () => {
  const forms = parseForms(CONSENT);

  it('finds every form with its action, method, fields and submit buttons', () => {
    expect(forms).toHaveLength(2);
    expect(forms[0]).toMatchObject({ action: '/oauth/authorize', method: 'post' });
    expect(forms[0].fields.map((f) => [f.name, f.value])).toEqual([
      ['authenticity_token', 'csrf&123'],
      ['client_id', 'abc'],
      ['remember', 'on'],
    ]);
    expect(forms[0].buttons).toHaveLength(1);
    expect(forms[0].buttons[0]).toMatchObject({ name: 'commit', value: 'approve', label: 'Authorize App' });
    expect(forms[1].buttons[0]).toMatchObject({ tag: 'input', value: 'Deny' });
  });

  it('matches buttons by simple selectors or by their text', () => {
    const [approve] = forms[0].buttons;
    const [deny] = forms[1].buttons;
    expect(matchesSelector(approve, 'button[name=commit][value=approve]')).toBe(true);
    expect(matchesSelector(approve, '.primary')).toBe(true);
    expect(matchesSelector(approve, 'input[name=commit]')).toBe(false);
    expect(matchesSelector(deny, '#deny')).toBe(true);
    expect(matchesSelector(deny, 'Deny')).toBe(true);
    expect(matchesSelector(deny, "[value='Deny']")).toBe(true);
    expect(matchesSelector(approve, 'Deny')).toBe(false);
  });

  it('submits the fields, the overrides and the pressed button as a browser would', () => {
    const body = formData(forms[0], { client_id: 'override', extra: '1' }, forms[0].buttons[0]);
    expect(body.toString()).toBe('authenticity_token=csrf%26123&client_id=override&remember=on&extra=1&commit=approve');
  });

  it('marks a form whose default (first) submit control is disabled: Enter sends it with no button (review 18)', () => {
    const marked = (controls: string) => parseForms(`<form>${controls}</form>`)[0].defaultDisabled ?? false;
    expect(marked('<button disabled>Authorize</button>')).toBe(true);
    expect(marked('<input type="image" disabled><button>Deny</button>')).toBe(true);
    expect(marked('<button>Deny</button><button disabled>Authorize</button>')).toBe(false);
    expect(marked('<button type="button" disabled>x</button><input name="a" disabled>')).toBe(false);
    expect(marked('<input name="a">')).toBe(false);
  });

  it('reads a control as submitting its form as HTML does, the same for the form and for a script-enabled page: a button of a type HTML does not know submits', () => {
    const controls: Array<[string, boolean]> = [
      ['<button type="image">Go</button>', true],
      ['<button type="Bogus">Go</button>', true],
      ['<button type="">Go</button>', true],
      ['<button>Go</button>', true],
      ['<button type="SUBMIT">Go</button>', true],
      ['<button type="reset">Go</button>', false],
      ['<button type="button">Go</button>', false],
      ['<input type="image">', true],
      ['<input type="submit">', true],
      ['<input type="bogus">', false],
    ];
    for (const [control, submits] of controls) {
      const [form] = parseForms(`<form>${control}</form>`);
      expect([control, form.buttons.length]).toEqual([control, submits ? 1 : 0]);
      const disabled = control.replace(/^<(button|input)/, '<$1 disabled');
      expect([control, parseForms(`<form>${disabled}</form>`)[0].defaultDisabled ?? false]).toEqual([control, submits]);
      const page = `<script></script><form>${disabled}</form>`;
      const pressFirst = (forms: HtmlForm[]) => forms[0].buttons[0];
      expect([control, disabledForScript(page, parseForms(page), pressFirst)]).toEqual([control, submits]);
    }
  });

  it('reads a disabled control as kept for a script only when it is the one the driver would press (review hform22)', () => {
    const FEEDBACK =
      '<form action="/feedback"><textarea name="f"></textarea><button disabled>Send feedback</button></form>';
    const CONSENT_FORM = '<form action="/authorize"><button>Deny</button><button disabled>Authorize</button></form>';
    const authorize = (forms: HtmlForm[]) => forms.flatMap((f) => f.buttons).find((b) => b.label === 'Authorize');
    const kept = (page: string) => disabledForScript(page, parseForms(page), authorize);
    // A refusal's feedback form: its button is disabled, but it is not the one pressed.
    expect(kept(`<script></script><p>Access blocked</p>${FEEDBACK}`)).toBe(false);
    // The consent's own Authorize, beside that feedback form or alone: kept for the script.
    expect(kept(`<script></script>${FEEDBACK}${CONSENT_FORM}`)).toBe(true);
    expect(kept(`<script></script>${CONSENT_FORM}`)).toBe(true);
    // No script to enable it, or it is live (the driver's choice among live buttons is no disabled one).
    expect(kept(CONSENT_FORM)).toBe(false);
    expect(kept(`<script></script>${CONSENT_FORM.replace(' disabled', '')}`)).toBe(false);
    // Kept aside in the form, never among the buttons pressed.
    expect(parseForms(CONSENT_FORM)[0]).toMatchObject({
      buttons: [{ label: 'Deny' }],
      disabled: [{ label: 'Authorize' }],
    });
  });

  it("keeps an unquoted value's last `/` (HTML ends it at white space or `>`); a `/` after white space closes the tag", () => {
    expect(parseAttributes('<a href=/x/>')).toEqual({ href: '/x/' });
    expect(parseAttributes('<a href=/x/ >')).toEqual({ href: '/x/' });
    expect(parseAttributes('<a href=/x />')).toEqual({ href: '/x' });
    expect(parseAttributes('<a href="/x"/>')).toEqual({ href: '/x' });
    expect(parseAttributes('<img alt/>')).toEqual({ alt: '' });
    expect(parseForms('<form action=/done/><button>Go</button></form>')[0].action).toBe('/done/');
  });
});

describe("the HTML readers read a page as a browser shows it: a comment's markup is no part of it", () => {
  const ALLOW = '<form method="post" action="/allow"><input type="submit" value="Allow"></form>';
  const DENY = '<form method="post" action="/deny"><button>Deny</button></form>';
  const buttons = (page: string) => parseForms(page).flatMap((f) => f.buttons.map((b) => b.label));
  const links = (page: string) => parseLinks(page).map((l) => `${l.href} ${l.label}`);

  it('no form, button, link, field or word inside a comment', () => {
    expect(buttons(`<!-- ${ALLOW} -->${DENY}`)).toEqual(['Deny']);
    expect(links('<!-- <a href="/allow">Allow</a> --><a href="/deny">Deny <!-- or Allow --></a>')).toEqual([
      '/deny Deny',
    ]);
    expect(pageText('<p>Allow access?</p><!-- <a href="/deny">Deny</a> --><p>Continue</p>')).toBe(
      'Allow access? Continue',
    );
    expect([...openingTags('<!-- <input type="password"> --><input name="q">')].map(([name]) => name)).toEqual([
      'input',
    ]);
  });

  it('an unterminated comment hides the rest of the page', () => {
    expect(buttons(`${DENY}<!-- ${ALLOW}`)).toEqual(['Deny']);
    expect(pageText('<p>Allow access?</p><!-- Deny')).toBe('Allow access?');
  });

  it('<!--> and <!---> are whole empty comments; --!> ends one, <!--!> and <!-- -- > do not', () => {
    expect(buttons(`<!-->${DENY}`)).toEqual(['Deny']);
    expect(buttons(`<!--->${DENY}`)).toEqual(['Deny']);
    expect(buttons(`<!-- ${ALLOW} --!>${DENY}`)).toEqual(['Deny']);
    expect(buttons(`<!--!> ${ALLOW} -->${DENY}`)).toEqual(['Deny']);
    expect(buttons(`<!-- -- > ${ALLOW} -->${DENY}`)).toEqual(['Deny']);
  });

  it("a <!-- inside a script's or a style's text starts no comment (raw text, as HTML reads it)", () => {
    expect(buttons(`<script>var open = "<!--";</script>${DENY}`)).toEqual(['Deny']);
    expect(buttons(`<style>/* <!-- */</style>${DENY}`)).toEqual(['Deny']);
    // The old way of hiding a script from browsers without scripting: the script is kept, nothing else hidden.
    expect(withoutComments(`<script><!--\nvar a = 1;\n//--></script>${DENY}`)).toBe(
      `<script><!--\nvar a = 1;\n//--></script>${DENY}`,
    );
  });
});

describe('submitsItself: a page that sends its form once loaded (a form_post)', () => {
  /** node-oidc-provider's form_post page (lib/response_modes/form_post.js), around `body`'s extra. */
  const formPost = (extra = '', button = '<noscript><button type="submit">Continue</button></noscript>') =>
    `<html><head><script>document.addEventListener('DOMContentLoaded', function () { document.forms[0].submit() });</script></head>
<body><form method="post" action="/device"><input type="hidden" name="user_code" value="ABCD-EFGH">${button}</form>${extra}</body></html>`;
  const sends = (html: string) => submitsItself(html, parseForms(html)[0]);

  it("its script submits and its form's only button is in <noscript>", () => {
    expect(sends(formPost())).toBe(true);
  });

  it("Keycloak's and ADFS's form_post: the body's onload submits (review 11: read as no such page before)", () => {
    const onload = (handler: string) =>
      `<html><body onload="${handler}"><form method="post" action="/cb"><input type="hidden" name="code" value="x"><noscript><button type="submit">Continue</button></noscript></form></body></html>`;
    expect(sends(onload('document.forms[0].submit()'))).toBe(true);
    expect(sends(onload('javascript:document.forms[0].submit()'))).toBe(true);
    expect(sends(onload('document.forms[0].reset()'))).toBe(false);
  });

  it('an empty comment (<!--> or <!--->) hides nothing: a Deny link after it is seen (review 11)', () => {
    expect(sends(formPost('<!--><a href="/deny">Deny</a>'))).toBe(false);
    expect(sends(formPost('<!---><a href="/deny">Deny</a>'))).toBe(false);
    expect(sends(formPost('<!-- a note --><p>Redirecting…</p>'))).toBe(true);
  });

  it('not with a button shown, another control shown, a script that never submits, or <noscript> in a comment', () => {
    expect(sends(formPost('', '<noscript>Turn JavaScript on.</noscript><button type="submit">Continue</button>'))).toBe(
      false,
    );
    expect(sends(formPost('<a href="/cancel">Cancel</a>'))).toBe(false);
    expect(sends(formPost('<input type="text" name="q">'))).toBe(false);
    expect(sends(formPost().replace('.submit()', '.reset()'))).toBe(false);
    expect(sends(formPost('', '<!-- <noscript> --><button type="submit">Continue</button>'))).toBe(false);
    expect(sends(formPost().replace(/<script>[\s\S]*?<\/script>/, '<!-- <script>form.submit()</script> -->'))).toBe(
      false,
    );
  });
});

describe("metaRefresh: where a page's <meta http-equiv=refresh> sends the browser", () => {
  const meta = (content: string, name = 'http-equiv="refresh"') =>
    `<html><head><meta ${name} content="${content}"></head></html>`;

  it('the URL, however HTML lets it be written (delay, ; or ,, url= in any case, quoted)', () => {
    expect(metaRefresh(meta('0;url=/oauth/authorize?a=1&amp;b=2'))).toBe('/oauth/authorize?a=1&b=2');
    expect(metaRefresh(meta('0; URL=http://127.0.0.1:1/cb?code=x'))).toBe('http://127.0.0.1:1/cb?code=x');
    expect(metaRefresh(meta("3, url='/users/sign_in' trailing"))).toBe('/users/sign_in');
    expect(metaRefresh(meta('1.5 ; /next'))).toBe('/next');
    expect(metaRefresh(meta('0;url=/next', 'HTTP-EQUIV="Refresh"'))).toBe('/next');
    expect(metaRefresh(`<noscript>${meta('0;url=/next')}</noscript>`)).toBe('/next');
  });

  it('none for a refresh of the page itself, a later one (a timeout), one in a comment, or another meta', () => {
    expect(metaRefresh(meta('0'))).toBeUndefined();
    expect(metaRefresh(meta('5; url='))).toBeUndefined();
    expect(metaRefresh(meta('900;url=/session-expired'))).toBeUndefined();
    expect(metaRefresh(`<!-- ${meta('0;url=/next')} -->`)).toBeUndefined();
    expect(metaRefresh(meta('0;url=/next', 'name="refresh"'))).toBeUndefined();
    expect(metaRefresh(meta('soon;url=/next'))).toBeUndefined();
  });

  it("none written in a raw element's text (a script's string, a textarea, a title): a browser reads no tag there", () => {
    const tag = `<meta http-equiv="refresh" content="0;url=/users/sign_out">`;
    expect(
      metaRefresh(`<script>setTimeout(() => head.insertAdjacentHTML('beforeend', '${tag}'), 9e5)</script>`),
    ).toBeUndefined();
    expect(metaRefresh(`<textarea name="note">${tag}</textarea>`)).toBeUndefined();
    expect(metaRefresh(`<title>${tag}</title><style>${tag}</style><xmp>${tag}</xmp>`)).toBeUndefined();
    // One after the raw element's end is read.
    expect(metaRefresh(`<script>'${tag}'</script ><meta http-equiv=refresh content="0;url=/next">`)).toBe('/next');
  });

  it('none written in a quoted attribute value, single, double or unquoted: a browser reads it as the value, no tag', () => {
    const tag = "<meta http-equiv='refresh' content='0;url=/elsewhere'>";
    expect(metaRefresh(`<div title="${tag}">Hello</div>`)).toBeUndefined();
    expect(metaRefresh(`<div title='${tag.replaceAll("'", '"')}'>Hello</div>`)).toBeUndefined();
    // Unquoted, a `<` is part of the value (the tag ends at the first `>`: what follows is text).
    expect(metaRefresh('<div title=<meta http-equiv=refresh content=0;url=/elsewhere>Hello</div>')).toBeUndefined();
    // A `>` in a quoted value ends no tag; the tag after it is read, its attributes whole.
    expect([
      ...openingTags(`<p title='a > b' data-x="${tag}"><meta http-equiv="refresh" content="0;url=/next">`),
    ]).toEqual([
      ['p', { title: 'a > b', 'data-x': tag }],
      ['meta', { 'http-equiv': 'refresh', content: '0;url=/next' }],
    ]);
    // Every reader reads the value so: a form written in one is no form, a <!-- in one no comment.
    expect(parseForms(`<div data-form='<form><input type="submit" value="Allow"></form>'></div>`)).toEqual([]);
    expect(
      parseForms(`<div title="<!--"></div><form><button>Deny</button></form>`).map((f) => f.buttons[0].label),
    ).toEqual(['Deny']);
    // A tag never closed ends the reading, as a browser drops it at the page's end.
    expect(metaRefresh(`<div title="never closed ${tag}`)).toBeUndefined();
  });

  it('a tag of any lawful name reads its quoted values whole (review 19: `.`, `:` or `é` in the name let the value be read as tags)', () => {
    const tag = "<meta http-equiv='refresh' content='0;url=/elsewhere'>";
    for (const name of ['my-el.x', 'x-é', 'a:b', 'svg:a_1'])
      expect(metaRefresh(`<${name} title="${tag}">hi</${name}>`), name).toBeUndefined();
    expect(parseForms(`<my-el.x title="<form action='/evil' method=post><input type=submit></form>">`)).toEqual([]);
    expect(withoutComments('<my-el.x title="<!--">visible<a href=/x>x</a><!-- -->')).toBe(
      '<my-el.x title="<!--">visible<a href=/x>x</a>',
    );
    // The name runs to HTML's white space, `/` or `>`: a `\v` is in it, so the meta after its space is an attribute.
    expect(metaRefresh(`<div\vtitle="${tag}">`)).toBeUndefined();
    expect([...openingTags(`<my-el.x data-a="1"/><x-é b=2>`)]).toEqual([
      ['my-el.x', { 'data-a': '1' }],
      ['x-é', { b: '2' }],
    ]);
  });

  it('a quote opens a quoted value only right after `=`: one inside an unquoted value is part of it (review 19)', () => {
    expect(parseLinks(`<a href=/help?t='x>Help</a> <a href="/approve">Approve</a>`).map((l) => l.href)).toEqual([
      "/help?t='x",
      '/approve',
    ]);
    expect(parseLinks(`<a href = '/spaced'>S</a><a title='x>y' href=/next>N</a>`).map((l) => l.href)).toEqual([
      '/spaced',
      '/next',
    ]);
  });

  it('onwardOf: a 2xx page refreshing elsewhere goes on; one refreshing itself (a waiting page) is read', () => {
    const answer = (url: string, html: string, status = 200) =>
      ({ status, url, text: html, headers: new Headers({ 'content-type': 'text/html' }) }) as HttpResponse;
    const at = 'http://127.0.0.1:1/device/wait?user_code=A';
    expect(onwardOf(answer(at, meta('2;url=/oauth/authorize')))).toEqual({
      to: '/oauth/authorize',
      what: "the page's refresh",
    });
    expect(onwardOf(answer(at, meta('5;url=/device/wait?user_code=A#top')))).toBeUndefined();
    expect(onwardOf(answer(at, meta('0;url=/next'), 400))).toBeUndefined();
  });

  it('onwardOf: a Refresh header goes on as the tag does, read first (review 14: it was not read)', () => {
    const answer = (refresh: string, html = '') =>
      ({ status: 200, url: 'http://127.0.0.1:1/a', text: html, headers: new Headers({ refresh }) }) as HttpResponse;
    expect(onwardOf(answer('1;url=/b'))).toEqual({ to: '/b', what: 'the Refresh header' });
    expect(onwardOf(answer('0;url=/b', meta('0;url=/c')))).toEqual({ to: '/b', what: 'the Refresh header' });
    expect(onwardOf(answer('0;url=/a'))).toBeUndefined();
    expect(onwardOf(answer('11;url=/b'))).toBeUndefined();
  });
});

describe('form driver on a provider with two-step pages', () => {
  it('enters the user code on one page, then consents on the next, and stops when sent back', async () => {
    const { createBrowser } = await import('../../suites/drivers/form.js');
    const { createHttp, createRecorder } = await import('../../suites/runner/http.js');
    const { createRedactor } = await import('../../suites/runner/redact.js');
    const { fakeTarget } = await import('./fakes.js');
    const posts: string[] = [];
    // Media types are case-insensitive: the driver must read `Text/HTML` as a page.
    const page = (html: string) => new Response(html, { headers: { 'content-type': 'Text/HTML; Charset=UTF-8' } });
    const target = fakeTarget(async (r) => {
      const path = new URL(r.url).pathname;
      if (r.method === 'POST') posts.push(`${path} ${r.body}`);
      if (path === '/device' && r.method === 'GET')
        return page('<form action="/device" method="post"><input name="user_code"><button>Continue</button></form>');
      if (path === '/device')
        return page(
          '<form action="/consent" method="post"><input type="hidden" name="t" value="1"><button name="d" value="yes">Authorize</button><button name="d" value="no">Deny</button></form>',
        );
      if (path === '/consent') return page(r.body?.includes('d=no') ? '<p>denied</p>' : '<p>approved</p>');
      return page('<form action="/loop" method="post"><button>Continue</button></form>');
    });
    const http = createHttp(target, createRecorder(), createRedactor());
    const browser = createBrowser(http, target.config);
    const result = await browser.browse('http://fake.test/device', 'deny', (form): Record<string, string> =>
      form.fields.some((f) => f.name === 'user_code') ? { user_code: 'ABCD' } : {},
    );
    expect(result.decided).toBe(true);
    expect(result.response.text).toContain('denied');
    expect(posts).toEqual(['/device user_code=ABCD', '/consent t=1&d=no']);
    const loop = await browser.browse('http://fake.test/loop', 'approve');
    expect(loop.decided).toBe(false);
  });
});

describe('form driver on a sign-in form sent by GET', () => {
  it('puts the credentials in the query of a GET, as a browser does, and sends no body', async () => {
    const { createBrowser } = await import('../../suites/drivers/form.js');
    const { createHttp, createRecorder } = await import('../../suites/runner/http.js');
    const { createRedactor } = await import('../../suites/runner/redact.js');
    const { fakeTarget } = await import('./fakes.js');
    const asked: string[] = [];
    const page = (html: string) => new Response(html, { headers: { 'content-type': 'text/html' } });
    const target = fakeTarget(
      async (r) => {
        const url = new URL(r.url);
        asked.push(`${r.method} ${url.pathname}${url.search} ${r.body ?? ''}`.trim());
        if (url.pathname === '/login' && !url.search)
          return page(
            '<form action="/login?step=2" method="get"><input name="username"><input type="password" name="password"><button>Sign in</button></form>',
          );
        return page('<p>signed in</p>');
      },
      { user: { username: 'ada', password: 'pw-1' } },
    );
    const http = createHttp(target, createRecorder(), createRedactor());
    const result = await createBrowser(http, target.config).browse('http://fake.test/login', 'approve');
    expect(result.response.text).toContain('signed in');
    // A GET form's action loses its own query: the fields replace it.
    expect(asked).toEqual(['GET /login', 'GET /login?username=ada&password=pw-1']);
  });
});

describe('form driver on a page a script draws', () => {
  it.each([
    ['form', /use driver: browser$/],
    ['browser', /this check fills HTML forms over HTTP, which the browser driver does not play for it$/],
  ] as const)('with driver %s configured, says what to do', async (kind, said) => {
    const { createBrowser } = await import('../../suites/drivers/form.js');
    const { createHttp, createRecorder } = await import('../../suites/runner/http.js');
    const { createRedactor } = await import('../../suites/runner/redact.js');
    const { fakeTarget } = await import('./fakes.js');
    const target = fakeTarget(
      async () =>
        new Response('<div id="app"></div><script src="/app.js"></script>', {
          headers: { 'content-type': 'text/html' },
        }),
      { driver: { kind } },
    );
    const http = createHttp(target, createRecorder(), createRedactor());
    // The registration checks ask the form driver with the configured driver's settings spread in.
    const browsing = createBrowser(http, target.config).browse(
      'http://fake.test/user_settings/applications',
      'approve',
    );
    await expect(browsing).rejects.toThrow(said);
  });
});
