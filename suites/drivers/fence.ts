/**
 * The browser's fence, behind the page's request guard (browser.ts): the guard sees the page's own
 * HTTP requests, not a WebSocket, a worker's or an out-of-process iframe's requests, nor WebRTC.
 * So each browser context goes through a proxy that is a local socket closing every connection
 * unread, and only the target's origins (baseUrl's and trustedOrigins) bypass it: whatever else
 * any frame, worker or socket of the page asks for ends there, with nothing sent on. WebRTC (UDP,
 * which no HTTP proxy carries) is kept to the proxy by a launch flag and removed from every page.
 */
import { createServer, type Server } from 'node:net';

/** WebRTC may use only the proxy (here: nowhere), never UDP of its own. */
export const WEBRTC_ARG = '--webrtc-ip-handling-policy=disable_non_proxied_udp';

export interface Fence {
  /** Playwright's context proxy option: everything but `allowed` goes to the closing socket. */
  proxy: { server: string; bypass: string };
  close(): Promise<void>;
}

/**
 * Chromium's bypass rule for exactly one origin. A rule without a port matches every port of the
 * host, and URL.origin leaves the scheme's default port out: `http://127.0.0.2` would have let the
 * page reach every service on 127.0.0.2, so the port is always written.
 */
export function bypassRule(origin: string): string {
  const { protocol, hostname, port } = new URL(origin);
  return `${protocol}//${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
}

/** A fence letting through exactly `allowed` (origins, as URL.origin spells them). */
export async function openFence(allowed: readonly string[]): Promise<Fence> {
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    // Playwright adds <-loopback>, so loopback origins other than these go through the fence too.
    proxy: { server: `http://127.0.0.1:${port}`, bypass: allowed.map(bypassRule).join(',') },
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
