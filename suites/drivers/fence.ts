/**
 * The browser's fence, behind the page's request guard (browser.ts): the guard sees the page's own
 * HTTP requests, not a WebSocket, a worker's or an out-of-process iframe's requests, nor WebRTC.
 * So each browser context goes through a proxy that is a local socket closing every connection
 * unread, and only the target's origins (baseUrl's and trustedOrigins) bypass it: whatever else
 * any frame, worker or socket of the page asks for ends there, with nothing sent on. WebRTC (UDP,
 * which no HTTP proxy carries) is kept to the proxy by a launch flag and removed from every page.
 */
import { createServer, type Server } from 'node:net';
import { ConfigError } from '../errors.js';

/** WebRTC may use only the proxy (here: nowhere), never UDP of its own. */
export const WEBRTC_ARG = '--webrtc-ip-handling-policy=disable_non_proxied_udp';

export interface Fence {
  /** Playwright's context proxy option: everything but `allowed` goes to the closing socket. */
  proxy: { server: string; bypass: string };
  close(): Promise<void>;
}

/** A host Chromium reads as one host: a plain name or IP literal, as trustedOrigins' pattern allows. */
const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])$/i;

/**
 * Chromium's bypass rule for exactly one origin. A rule without a port matches every port of the
 * host, and URL.origin leaves the scheme's default port out: `http://127.0.0.2` would have let the
 * page reach every service on 127.0.0.2, so the port is always written. A baseUrl's host the URL
 * parser accepts may be a rule of its own (`*` a wildcard, `a,*` two rules): refused.
 */
export function bypassRule(origin: string): string {
  const { protocol, hostname, port } = URL.canParse(origin)
    ? new URL(origin)
    : { protocol: '', hostname: '', port: '' };
  if (!PLAIN_HOST.test(hostname))
    throw new ConfigError(
      `the browser can be fenced only to a plain host name or IP literal, not "${hostname.slice(0, 60)}" (${origin.slice(0, 100)})`,
    );
  return `${protocol}//${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
}

/** A fence letting through exactly `allowed` (origins, as URL.origin spells them). */
export async function openFence(allowed: readonly string[]): Promise<Fence> {
  // <-loopback> first: Chromium lets loopback past any proxy unless told, and Playwright adds it
  // only when PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK is unset in the user's environment.
  // Written before the socket opens: a host refused leaves nothing listening.
  const bypass = ['<-loopback>', ...allowed.map(bypassRule)].join(',');
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    proxy: { server: `http://127.0.0.1:${port}`, bypass },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * An init script for every frame: no peer connection (WebRTC) and no WebTransport, whose
 * traffic would not pass through the fence's proxy. Runs in the page: it must stand alone.
 */
export function withoutPeerConnections(): void {
  // Configurable properties of the window: deleted, the page cannot construct them again.
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'WebTransport'])
    delete (globalThis as Record<string, unknown>)[name];
}
