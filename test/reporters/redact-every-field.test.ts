/**
 * A secret in every field a report has (every string the report schema allows, `reproduce`,
 * `failures` and `expectedReason` included), each in a different disguise, with the harness's
 * prose around it. Every format is compared whole with the rendering of the report written with
 * the masks by hand, and searched for each raw secret: a leak names its field, a lost word of
 * prose changes the output.
 */
import { describe, expect, it } from 'vitest';
import {
  formatConsole,
  redact,
  renderHtml,
  renderJson,
  renderJunit,
  renderJunitRules,
  renderMarkdown,
  reportSchema,
  validateReport,
} from '../../reporters/index.js';
import type { Report } from '../../suites/report/model.js';
import { FIELDS, JWT, RAW, fixture } from './every-field.js';

const mask = (raw: string) => `${raw.slice(0, 4)}…`;
const withSecrets = () => fixture((raw) => raw);
const masked = () => fixture(mask);

/** Where the schema allows free text: every string that is not an enum, a constant or a date. */
function stringPaths(node: Record<string, any>, path: string, out: Set<string>): Set<string> {
  if (node.$ref) return stringPaths(reportDefs()[node.$ref.replace('#/$defs/', '')], path, out);
  if (node.type === 'string' && !node.format) out.add(path);
  for (const [key, child] of Object.entries(node.properties ?? {})) stringPaths(child as any, `${path}/${key}`, out);
  if (node.items) stringPaths(node.items, `${path}/*`, out);
  if (typeof node.additionalProperties === 'object') stringPaths(node.additionalProperties, `${path}/*`, out);
  return out;
}
const reportDefs = () => (reportSchema as { $defs: Record<string, object> }).$defs;

/** The paths (array indexes and header names as `*`) of the strings holding a raw secret. */
function secretPaths(value: unknown, path: string, out: Set<string>, parent?: string): Set<string> {
  if (typeof value === 'string') {
    if ([...Object.values(RAW), JWT].some((raw) => value.includes(raw))) out.add(path);
  } else if (Array.isArray(value)) value.forEach((item) => secretPaths(item, `${path}/*`, out));
  else if (value && typeof value === 'object')
    for (const [key, child] of Object.entries(value))
      secretPaths(child, `${path}/${parent === 'headers' ? '*' : key}`, out, key);
  return out;
}

const FORMATS: Record<string, (report: Report) => string> = {
  json: renderJson,
  junit: renderJunit,
  'junit-rules': renderJunitRules,
  html: renderHtml,
  md: renderMarkdown,
  console: (report) => formatConsole(report),
  'console (color)': (report) => formatConsole(report, { color: true }),
};

describe('a secret in every field of a report', () => {
  it('the fixture is a valid report with a raw secret in every free-text field the schema has', () => {
    expect(validateReport(withSecrets())).toEqual([]);
    expect([...secretPaths(withSecrets(), '', new Set())].sort()).toEqual(
      [...stringPaths(reportSchema as Record<string, any>, '', new Set())].sort(),
    );
    for (const raw of Object.values(RAW)) expect(JSON.stringify(withSecrets())).toContain(raw);
  });

  it('redact masks each secret to its prefix and keeps every other character', () => {
    expect(redact(withSecrets())).toEqual(masked());
    expect(redact(masked())).toEqual(masked());
    expect(validateReport(redact(withSecrets()))).toEqual([]);
  });

  for (const [format, render] of Object.entries(FORMATS)) {
    it(`${format}: no raw secret, and the whole output is that of the report masked by hand`, () => {
      const out = render(withSecrets());
      for (const field of FIELDS) expect(out, field).not.toContain(RAW[field]);
      expect(out).not.toContain(JWT);
      expect(out).toBe(render(masked()));
    });
  }

  it('json: the file is the masked report itself', () => {
    expect(JSON.parse(renderJson(withSecrets()))).toEqual(masked());
  });
});
