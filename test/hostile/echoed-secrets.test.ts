/**
 * Review 22: a target that echoes the credentials it received in its error bodies, spelled so a
 * reader still reads them (split across lines, one character a line, a space between characters,
 * every character a JSON `\u` escape or an HTML entity), got the password, the personal access
 * token, both client secrets, the authorization code and the PKCE verifier into the JSON, HTML,
 * JUnit and Markdown reports: the masking knew the exact forms only. Here a proxy in front of the
 * simulator remembers every credential it is sent and answers every token request 400 with all of
 * them in each such form in `error_description`; one check meets it, and no report, nor stdout or
 * stderr, shows any of them to a reader who undoes those spellings.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetConfig } from '../../spec/target-config.js';
import { runCli } from '../suites/loopback.js';
import { credentialsOf, proxiedSimulator } from './collector.js';
import { reading } from './reading.js';

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');

/** Each spelling of a secret the target echoes: as it is (masked before review 22 too), then those that leaked. */
const FORMS: Record<string, (s: string) => string> = {
  plain: (s) => s,
  'split in two lines': (s) => `${s.slice(0, s.length >> 1)}\n${s.slice(s.length >> 1)}`,
  'one character a line': (s) => [...s].join('\n'),
  'a space between characters': (s) => [...s].join(' '),
  'JSON escapes': (s) => [...s].map((c) => `\\u${hex(c, 4)}`).join(''),
  'HTML decimal entities': (s) => [...s].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  'HTML hex entities': (s) => [...s].map((c) => `&#X${hex(c, 1).toUpperCase()};`).join(''),
  // A reader decodes each character however it is written: no list of whole forms holds these.
  'mixed, leading zeros, no semicolon': (s) =>
    [...s].map((c, i) => [c, `\\u${hex(c, 4)}`, `&#00${c.charCodeAt(0)}`, `&#x00${hex(c, 1)};`][i % 4]).join(''),
};

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-echo-'));
/** Every credential the target was sent, and how many answers echoed them. */
const sent = new Set<string>();
let echoed = 0;
let front: Awaited<ReturnType<typeof proxiedSimulator>>;
/** The config's password, personal access token and client secrets: the target knows them, as their issuer. */
let pinned: string[] = [];

beforeAll(async () => {
  front = await proxiedSimulator(dir, (req, answer, body) => {
    for (const value of credentialsOf(req.headers, body)) sent.add(value);
    const token = req.method === 'POST' && (req.url ?? '').startsWith('/oauth/token');
    if (!token && answer.status < 400) return answer;
    echoed++;
    const said = [...new Set([...pinned, ...sent])]
      .flatMap((s) => Object.values(FORMS).map((form) => form(s)))
      .join('\n');
    return {
      status: 400,
      headers: [['content-type', 'application/json']],
      body: Buffer.from(JSON.stringify({ error: 'invalid_grant', error_description: `you sent\n${said}` })),
    };
  });
  const config = JSON.parse(readFileSync(front.config, 'utf8')) as TargetConfig;
  pinned = [
    config.user!.password,
    config.personalAccessToken!,
    config.applications?.confidential?.clientSecret ?? '',
    config.applications?.limited?.clientSecret ?? '',
  ];
});

afterAll(() => front?.close());

describe('credentials a target echoes, spelled so a reader still reads them', () => {
  it('are in no report, nor on stdout or stderr, in any form', async () => {
    const files = { json: 'r.json', html: 'r.html', junit: 'r.xml', md: 'r.md' };
    const run = await runCli({
      config: front.config,
      check: 'grants.pkce-valid-verifier',
      seed: '22',
      runs: '1',
      report: Object.entries(files)
        .map(([kind, file]) => `${kind}=${join(dir, file)}`)
        .join(','),
    });
    // The premise: the check met the echo, of the user's password, the code and the verifier it sent too.
    expect(run.code).toBe(1);
    expect(echoed).toBeGreaterThan(0);
    expect(pinned.every(Boolean)).toBe(true);
    expect(sent).toContain(pinned[0]);
    expect(sent.size).toBeGreaterThanOrEqual(3);
    const outputs: Record<string, string> = { stdout: run.out, stderr: run.err };
    for (const [kind, file] of Object.entries(files)) outputs[kind] = readFileSync(join(dir, file), 'utf8');
    // The reports carry the echo (masked), so they were read where the secrets would be.
    expect(outputs.json).toContain('you sent');
    const shown: string[] = [];
    for (const [where, text] of Object.entries(outputs)) {
      const read = reading(text);
      for (const secret of new Set([...pinned, ...sent])) {
        if (read.includes(reading(secret))) shown.push(`${where}: ${secret.slice(0, 4)}…`);
        for (const [name, form] of Object.entries(FORMS))
          if (text.includes(form(secret))) shown.push(`${where}: ${name} of ${secret.slice(0, 4)}…`);
      }
    }
    expect(shown).toEqual([]);
  }, 120_000);
});
