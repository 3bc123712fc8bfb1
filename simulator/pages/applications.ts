/**
 * `/user_settings/applications`: a signed-in user registers an application (name, redirect URIs
 * one per line, scopes, confidential) and sees its Application ID and Client Secret once.
 */
import type { Ctx, Handler } from '../types.js';
import { redirect } from '../http.js';
import { limits } from '../../spec/index.js';
import { full } from '../bounds.js';
import type { Application, User } from '../store.js';
import { createApplication, ValidationError } from '../oauth/accounts.js';
import { KNOWN_SCOPES } from '../oauth/scopes.js';
import { csrfValid, signedIn, signInLocation } from '../oauth/session.js';
import { FIELDS, esc, hidden, page } from './layout.js';

const PATH = '/user_settings/applications';

export const APPLICATION_FIELDS = {
  name: 'application[name]',
  redirectUri: 'application[redirect_uri]',
  scopes: 'application[scopes][]',
  confidential: 'application[confidential]',
} as const;

function owned(ctx: Ctx, user: User): Application[] {
  return [...ctx.sim.store.applications.values()].filter((a) => a.ownerId === user.id);
}

/**
 * One page of the user's applications (`?page=N`, limits.applicationsPageSize a page): a GET builds
 * a bounded page however many there are. A page past the last, or no number, shows the nearest.
 */
function list(ctx: Ctx, user: User): string {
  const mine = owned(ctx, user);
  if (mine.length === 0) return '<p>No applications yet.</p>';
  const size = limits().applicationsPageSize;
  const pages = Math.ceil(mine.length / size);
  const asked = ctx.query.get('page') ?? '';
  const at = Math.min(/^[1-9]\d{0,8}$/.test(asked) ? Number(asked) : 1, pages);
  const rows = mine
    .slice((at - 1) * size, at * size)
    .map(
      (a) =>
        `<tr><td>${esc(a.name)}</td><td><code>${esc(a.uid)}</code></td><td>${esc(a.scopes.join(' '))}</td><td>${a.confidential ? 'yes' : 'no'}</td></tr>`,
    )
    .join('\n');
  const link = (rel: string, n: number, label: string) => `<a rel="${rel}" href="${PATH}?page=${n}">${label}</a>`;
  const nav = [
    at > 1 ? link('prev', at - 1, 'Previous') : '',
    `Page ${at} of ${pages} (${mine.length} applications)`,
    at < pages ? link('next', at + 1, 'Next') : '',
  ].filter(Boolean);
  return `<table id="applications"><thead><tr><th>Name</th><th>Application ID</th><th>Scopes</th><th>Confidential</th></tr></thead>
<tbody>${rows}</tbody></table>
<nav id="pages">${nav.join(' ')}</nav>`;
}

function form(csrf: string, error?: string): string {
  const boxes = KNOWN_SCOPES.map(
    (s) => `<label><input type="checkbox" name="${APPLICATION_FIELDS.scopes}" value="${s}"> ${s}</label>`,
  ).join('\n');
  return `${error ? `<p id="error" role="alert">${esc(error)}</p>` : ''}
<form id="new-application" method="post" action="${PATH}">
${hidden(FIELDS.csrf, csrf)}
<label>Name <input type="text" name="${APPLICATION_FIELDS.name}" required></label>
<label>Redirect URI (one per line) <textarea name="${APPLICATION_FIELDS.redirectUri}" required></textarea></label>
<label><input type="checkbox" name="${APPLICATION_FIELDS.confidential}" value="1" checked> Confidential</label>
<fieldset><legend>Scopes</legend>
${boxes}
</fieldset>
<button type="submit">Save application</button>
</form>`;
}

export const applicationsPage: Handler = (ctx) => {
  const who = signedIn(ctx.sim, ctx.request);
  if (!who) return redirect(signInLocation(PATH));
  return page(200, 'Applications', `${list(ctx, who.user)}\n<h2>Add new application</h2>\n${form(who.csrf)}`);
};

export const applicationsCreate: Handler = async (ctx) => {
  const who = signedIn(ctx.sim, ctx.request);
  if (!who) return redirect(signInLocation(PATH));
  const body = await ctx.body();
  const f = body.kind === 'form' ? body.form : new URLSearchParams();
  if (!csrfValid(who.csrf, f.get(FIELDS.csrf))) {
    return page(
      422,
      'Applications',
      form(who.csrf, 'The form expired or the request was forged (invalid authenticity token).'),
    );
  }
  try {
    const crowded = full('applications', owned(ctx, who.user).length, 'applicationsPerOwnerMax');
    if (crowded) throw new ValidationError(crowded);
    const app = createApplication(ctx.sim, {
      name: f.get(APPLICATION_FIELDS.name) ?? '',
      redirectUris: (f.get(APPLICATION_FIELDS.redirectUri) ?? '').split(/\r?\n/),
      scopes: f.getAll(APPLICATION_FIELDS.scopes),
      confidential: f.get(APPLICATION_FIELDS.confidential) === '1',
      ownerId: who.user.id,
    });
    return page(
      201,
      `Application: ${app.name}`,
      `<dl id="application">
<dt>Application ID</dt><dd><code id="application-id">${esc(app.uid)}</code></dd>
<dt>Secret</dt><dd><code id="client-secret">${esc(app.secret)}</code></dd>
<dt>Callback URL</dt><dd>${app.redirectUris.map((u) => `<code>${esc(u)}</code>`).join('<br>')}</dd>
<dt>Scopes</dt><dd>${esc(app.scopes.join(' '))}</dd>
<dt>Confidential</dt><dd>${app.confidential ? 'Yes' : 'No'}</dd>
</dl>
<p>Copy the secret now: it is not shown again.</p>`,
    );
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return page(422, 'Applications', form(who.csrf, error.message));
  }
};
