/**
 * Review 24: `diff` keeps the names a target chooses (JSON members, cookie names, Vary entries,
 * challenge parameters, query parameter names, path segments), and a target that echoed the
 * credentials it was sent as such names got them whole into the diff on the console and in every
 * report (`member $.glpat-…`), where `run` masks the same echo. Here a front in front of the
 * simulator echoes the personal access token, the confidential client's secret, the access token
 * it minted last and whatever credential the request carried as each kind of name, and serves
 * pagination links under a path segment named after the token; no output of `diff` shows any.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeDiff } from '../../cli/diff.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createSimulator } from '../../simulator/core.js';
import type { DiffSection } from '../../suites/report/model.js';
import { credentialsOf, startCollector, startProxy, type Collector } from './collector.js';
import { reading } from './reading.js';

const dir = mkdtempSync(join(tmpdir(), 'idp-hostile-diff-names-'));
/** The path a link is moved under: `/echo/<token>/api/v4/…`, served as `/api/v4/…`. */
const ECHO = /^\/echo\/[^/]+/;
/** The personal access token and the confidential client's secret: the target knows them, as their issuer. */
let pinned: string[] = [];
/** Every access token the target minted, and every credential it was sent. */
const minted: string[] = [];
const sent = new Set<string>();
let echoed = 0;
let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let front: Collector;

/** A value a header may carry as a name (a cookie's, a Vary entry, a challenge parameter). */
const headerWord = (value: string) => /^[\w.~-]+$/.test(value);

beforeAll(async () => {
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (req, answer, body) => {
    const path = req.url ?? '/';
    if (path.startsWith('/-/simulator/')) return answer;
    const carried = credentialsOf(req.headers, body);
    for (const value of carried) sent.add(value);
    const names = [...new Set([...pinned, ...minted.slice(-1), ...carried])];
    let text = answer.body.toString('utf8');
    const json = answer.headers.some(([k, v]) => k.toLowerCase() === 'content-type' && v.includes('json'));
    if (json && text.startsWith('{')) {
      const value = JSON.parse(text) as Record<string, unknown>;
      if (path.startsWith('/oauth/token') && typeof value.access_token === 'string') minted.push(value.access_token);
      for (const name of names) value[name] = 1;
      text = JSON.stringify(value);
    }
    const words = names.filter(headerWord);
    const headers = answer.headers
      .filter(([k]) => !/^(vary|www-authenticate)$/i.test(k))
      .map(([k, v]): [string, string] => {
        if (!/^(link|location)$/i.test(k)) return [k, v];
        // Each URL gets a parameter named after the token; a Link's, a path segment too.
        return [
          k,
          v.replace(/https?:\/\/[^\s<>,;]+/g, (url) => {
            const moved = new URL(url);
            moved.searchParams.set(pinned[0], '1');
            if (/link/i.test(k) && moved.pathname.startsWith('/api/'))
              moved.pathname = `/echo/${pinned[0]}${moved.pathname}`;
            return moved.href;
          }),
        ];
      });
    headers.push(
      ...words.map((w): [string, string] => ['set-cookie', `${w}=1; Path=/`]),
      ['vary', ['Accept', ...words].join(', ')],
      ['www-authenticate', ['Bearer realm="x"', ...words.map((w) => `${w}=1`)].join(', ')],
    );
    echoed++;
    return { ...answer, headers, body: Buffer.from(text) };
  });
  // The front serves a link moved under /echo/<token>/ as the simulator's own path.
  front = await startCollector((req, res, body) => {
    req.url = (req.url ?? '/').replace(ECHO, '');
    proxy.handle(req, res, body);
  });
  sim.options.controlHosts = [served.url, proxy.url, front.url].map((u) => new URL(u).host);
  const config = targetConfig(sim, front.url);
  pinned = [config.personalAccessToken!, config.applications!.confidential!.clientSecret!];
  writeFileSync(join(dir, 'target.json'), JSON.stringify(config));
});

afterAll(async () => {
  await front?.close();
  await proxy?.close();
  await served?.close();
});

describe('diff: credentials a target echoes as the names it chooses', () => {
  it('are in no diff output: console, JSON, HTML, JUnit, Markdown', async () => {
    const files = { json: 'd.json', html: 'd.html', junit: 'd.xml', md: 'd.md' };
    const out: string[] = [];
    const err: string[] = [];
    await executeDiff(
      {
        config: join(dir, 'target.json'),
        rule: 'SCOPE-READ-USER,PAG-LINK-HEADER',
        seed: '24',
        runs: '1',
        report: Object.entries(files)
          .map(([kind, file]) => `${kind}=${join(dir, file)}`)
          .join(','),
      },
      { out: (t) => void out.push(t), err: (t) => void err.push(t) },
      {},
    );
    const outputs: Record<string, string> = { stdout: out.join(''), stderr: err.join('') };
    for (const [kind, file] of Object.entries(files)) outputs[kind] = readFileSync(join(dir, file), 'utf8');
    // The premise: the target echoed them, a token it minted among them, and the diff shows each kind of name.
    expect(echoed).toBeGreaterThan(0);
    expect(minted.length).toBeGreaterThan(0);
    expect(pinned.every(Boolean)).toBe(true);
    const { diff } = JSON.parse(outputs.json) as { diff: DiffSection };
    const rows = diff.differences.map((d) => `${d.operation} ${d.kind} ${d.subject} ${d.target}`);
    for (const shown of [
      / member \$\.\S+ integer$/,
      / header set-cookie /,
      / header vary /,
      / header www-authenticate /,
      /^GET \/echo\//,
      / location location .*\?/,
    ])
      expect(
        rows.some((row) => shown.test(row)),
        `${shown}\n${rows.join('\n')}`,
      ).toBe(true);
    const shown: string[] = [];
    for (const [where, text] of Object.entries(outputs)) {
      const read = reading(text);
      for (const secret of new Set([...pinned, ...minted, ...sent]))
        if (read.includes(reading(secret))) shown.push(`${where}: ${secret.slice(0, 4)}…`);
    }
    expect(shown).toEqual([]);
  }, 300_000);
});
