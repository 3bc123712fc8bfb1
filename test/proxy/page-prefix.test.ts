/**
 * `proxy --target http://host/prefix` in front of a provider mounted under that prefix (a relative
 * URL root, as GitLab's `external_url 'https://host/gitlab'`), which writes its own links with it.
 * A client that takes the page a Link names onto its own base URL (gitbeaker: the link's query on
 * the endpoint it asked) follows the Link: no `builds-page-urls`. One that makes the page up
 * itself behind the same prefix still is noted.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulation } from '../../cli/simulate.js';
import { targetConfig } from '../../simulator/control/config.js';
import { parseLinkHeader } from '../../suites/pagination/links.js';
import { recordingProxy } from './behind.js';

const PREFIX = '/prefix';

/**
 * How the mounted provider writes its links: with the prefix at its own origin (its configured
 * URL) or path-absolute; or as the simulator wrote them, at the Host asked without the prefix.
 */
type Style = 'own-origin' | 'path' | 'as-asked';

let simulation: Awaited<ReturnType<typeof startSimulation>>;
let token: string;
let front: Server;
let frontOrigin: string;
let style: Style = 'own-origin';

/** A link of the simulator's as the mounted provider writes it: with the prefix, at its own origin or path-absolute. */
function mounted(url: string): string {
  const u = new URL(url);
  return `${style === 'own-origin' ? frontOrigin : ''}${PREFIX}${u.pathname}${u.search}`;
}

/** The simulator under PREFIX: requests outside it 404; Link URLs written with the prefix. */
function mountedFront(simulator: URL): Server {
  return createServer((req, res) => {
    if (!req.url?.startsWith(`${PREFIX}/`)) return void res.writeHead(404).end('outside the root');
    const upstream = request(
      {
        host: simulator.hostname,
        port: simulator.port,
        method: req.method,
        path: req.url.slice(PREFIX.length),
        headers: req.headers,
      },
      (answer) => {
        const headers = { ...answer.headers };
        const link = answer.headers.link;
        if (typeof link === 'string' && style !== 'as-asked')
          headers.link = Object.entries(parseLinkHeader(link) ?? {})
            .flatMap(([rel, urls]) => (urls ?? []).map((url) => `<${mounted(url)}>; rel="${rel}"`))
            .join(', ');
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
}

beforeAll(async () => {
  simulation = await startSimulation(
    {},
    () => undefined,
    () => undefined,
  );
  token = targetConfig(simulation.sim, simulation.served.url).personalAccessToken!;
  front = mountedFront(new URL(simulation.served.url));
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontOrigin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => front.close(resolve));
  await simulation.served.close();
});

/** GET `path?query` through the proxy with the token; the Link's targets by relation. */
async function get(proxy: string, query: string): Promise<Record<string, string[] | undefined>> {
  const res = await fetch(`${proxy}/api/v4/projects?${query}`, { headers: { 'private-token': token } });
  await res.text();
  expect(res.status, query).toBe(200);
  return parseLinkHeader(res.headers.get('link')) ?? {};
}

/** The query of the Link with this relation, as gitbeaker takes it onto its own endpoint. */
const queryOf = (links: Record<string, string[] | undefined>, rel: string): string => {
  const target = links[rel]?.[0];
  expect(target, rel).toBeDefined();
  return new URL(target!, 'http://base.invalid').search.slice(1);
};

/** A client's walk through `proxy --target {front}/prefix`: the habits the proxy's report noted, the rules it passed. */
async function habitsOf(name: string, walk: (proxy: string) => Promise<void>) {
  const proxy = await recordingProxy(name, `${frontOrigin}${PREFIX}`);
  try {
    await walk(proxy.url);
    const { proxy: report } = await proxy.finish();
    // The walk was judged as the provider's too, and broke none of its rules.
    expect(report.rules.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual([]);
    return {
      habits: (report.client?.habits ?? []).map((h) => h.habit),
      passed: report.rules.filter((r) => r.status === 'passed').map((r) => r.id),
    };
  } finally {
    proxy.stop();
  }
}

describe.each<Style>(['own-origin', 'path', 'as-asked'])('a provider under a prefix, its links written %s', (s) => {
  beforeAll(() => void (style = s));

  it('a client that takes each rel=next (keyset) or rel=last onto its own base builds no page URL', async () => {
    const { habits, passed } = await habitsOf(`prefix-follows-${s}`, async (proxy) => {
      let links = await get(proxy, 'pagination=keyset&per_page=1&order_by=id&sort=asc');
      for (let i = 0; i < 2; i++) links = await get(proxy, queryOf(links, 'next'));
      const first = await get(proxy, 'per_page=1');
      await get(proxy, queryOf(first, 'last'));
    });
    expect(habits).toEqual([]);
    // Each keyset page is read after the last row of the page whose rel=next led to it.
    expect(passed).toContain('PAG-KEYSET-ROWS');
  });

  it.runIf(s === 'path')(
    'a client that follows each Link as written (python-gitlab) reaches its pages through the proxy',
    async () => {
      const { habits, passed } = await habitsOf(`prefix-literal-${s}`, async (proxy) => {
        let links = await get(proxy, 'pagination=keyset&per_page=1&order_by=id&sort=asc');
        for (let i = 0; i < 2; i++) {
          // The link as written, on the proxy's origin: a path under the prefix goes as it is.
          const res = await fetch(new URL(links.next![0], proxy), { headers: { 'private-token': token } });
          await res.text();
          expect(res.status, links.next![0]).toBe(200);
          links = parseLinkHeader(res.headers.get('link')) ?? {};
        }
      });
      expect(habits).toEqual([]);
      expect(passed).toContain('PAG-KEYSET-ROWS');
    },
  );

  it('a client that makes up the page behind the same prefix is still noted', async () => {
    const { habits } = await habitsOf(`prefix-builds-${s}`, async (proxy) => {
      await get(proxy, 'per_page=1');
      // Page 3: neither a Link nor x-next-page of page 1 named it.
      await get(proxy, 'per_page=1&page=3');
    });
    expect(habits).toEqual(['builds-page-urls']);
  });
});
