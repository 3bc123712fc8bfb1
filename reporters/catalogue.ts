/**
 * The rule catalogue as one offline HTML page and as Markdown for the repository
 * (`idp-conformance spec catalogue --out DIR`). Each rule's entry has the anchor `#RULE-ID`, which
 * every rule id in the HTML and Markdown reports links to.
 */
import escapeHtml from 'escape-html';
import type { CatalogueEntry } from '../spec/catalogue.js';
import { md } from './markdown.js';
import { CATALOGUE_FILES, catalogueAnchor } from './rule-links.js';

const h = (value: unknown): string => escapeHtml(String(value));
const area = (id: string) => id.split('-')[0];

function inForce(e: CatalogueEntry): string {
  const parts = [
    e.since ? `from ${e.since}` : '',
    e.until ? `until ${e.until}` : '',
    e.offering ? `${e.offering} only` : '',
    e.flag ? `flag ${e.flag}` : '',
    e.setting ? `setting ${e.setting}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every release, both offerings';
}

/** The facts of an entry in a fixed order, shared by both formats. */
function facts(e: CatalogueEntry): [string, string][] {
  return [
    ['Level', e.level],
    ['Origin', e.origin],
    ['Source', e.source],
    ['In force', inForce(e)],
    [
      'Checks',
      e.checks.join(', ') ||
        (e.level === 'info' ? 'none (context, not judged)' : 'none (not checkable: see the README)'),
    ],
    ['Faults', e.faults.join(', ') || 'none'],
  ];
}

export function renderCatalogueMarkdown(entries: readonly CatalogueEntry[]): string {
  const out = [
    '# Rule catalogue',
    '',
    `Generated from \`spec/\` by \`idp-conformance spec catalogue\`: ${entries.length} rules. Do not edit by hand.`,
    'Line numbers are those of `spec/source-spec.md`.',
  ];
  let current = '';
  for (const e of entries) {
    if (area(e.id) !== current) {
      current = area(e.id);
      out.push('', `## ${current}`);
    }
    out.push('', `### <a id="${catalogueAnchor(e.id)}"></a>${e.id}: ${md(e.title)}`, '', md(e.statement), '');
    for (const [k, v] of facts(e)) out.push(`- **${k}:** ${md(v)}`);
    for (const s of e.sentences) out.push(`- **L${s.line}** (${md(s.section)}): ${md(s.text)}`);
  }
  return out.join('\n') + '\n';
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;color:#1b1f24}
h2{margin-top:2rem;border-bottom:1px solid #d0d7de}section{margin:1.25rem 0;padding:.5rem .75rem;border-left:4px solid #d0d7de}
section:target{border-color:#0969da;background:#f6f8fa}code{font-size:.9em}dl{display:grid;grid-template-columns:7rem 1fr;gap:.1rem .75rem;margin:.5rem 0}
dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere}blockquote{margin:.25rem 0;color:#424a53}.must{color:#b42318}.should{color:#9a6700}.info{color:#57606a}
nav a{margin-right:.6rem}`;

export function renderCatalogueHtml(entries: readonly CatalogueEntry[]): string {
  const areas = [...new Set(entries.map((e) => area(e.id)))];
  const body = areas
    .map((a) => {
      const items = entries
        .filter((e) => area(e.id) === a)
        .map((e) => {
          const dl = facts(e)
            .map(([k, v]) => `<dt>${h(k)}</dt><dd${k === 'Level' ? ` class="${h(v)}"` : ''}>${h(v)}</dd>`)
            .join('');
          const quotes = e.sentences
            .map((s) => `<blockquote><b>L${s.line}</b> ${h(s.section)}: “${h(s.text)}”</blockquote>`)
            .join('');
          return `<section id="${h(catalogueAnchor(e.id))}"><h3><code>${h(e.id)}</code> ${h(e.title)}</h3><p>${h(e.statement)}</p><dl>${dl}</dl>${quotes}</section>`;
        })
        .join('\n');
      return `<h2 id="area-${h(a)}">${h(a)}</h2>\n${items}`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>idp-conformance rule catalogue</title><style>${STYLE}</style></head><body>
<h1>Rule catalogue</h1><p>${entries.length} rules, generated from <code>spec/</code>; line numbers are those of <code>spec/source-spec.md</code>.</p>
<nav>${areas.map((a) => `<a href="#area-${h(a)}">${h(a)}</a>`).join('')}</nav>
${body}
</body></html>
`;
}

/** Each catalogue format: the file it is written to and how it is rendered (`spec catalogue`, and beside reports). */
export const CATALOGUE_FORMATS = {
  html: { file: CATALOGUE_FILES.html, render: renderCatalogueHtml },
  md: { file: CATALOGUE_FILES.md, render: renderCatalogueMarkdown },
} as const;
