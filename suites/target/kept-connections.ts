/**
 * Kept-alive connections to the target, guarded against answers out of step. HTTP/1.1 answers name
 * no request, so bytes a target sends after an answer (a body behind a HEAD or 204 answer written
 * apart, a second answer, an unasked 408 on an idle connection) would be read as the start of the
 * next request's answer on that connection, and blamed on its check. A kept connection that
 * receives anything while it waits is closed, and from then on this target gets a connection per
 * request: it has shown it sends what nobody asked for. Keeping connections alive otherwise spares
 * every honest remote target a TCP and a TLS round trip per request (thousands in a run).
 *
 * Left: bytes that arrive only once the next request is on its way cannot be told from its answer.
 * A target holding an answer back so is choosing what the next answer says, as it may anyway.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Duplex } from 'node:stream';

export interface KeptConnections {
  'http:': HttpAgent;
  'https:': HttpsAgent;
  /** Whether the target sent bytes on a connection between answers (its connections are no longer kept). */
  strayed(): boolean;
  destroy(): void;
}

/**
 * How long a kept connection may sit idle before the harness closes it itself. Providers close idle
 * connections after a few seconds (Node's and Apache's 5, gunicorn's 2); a request written on one
 * just as the provider closes it gets a reset, and a non-safe one (a device poll every 5 s, a token
 * request after a wait) is then not sent again (http.ts resendable): it may have been applied. A
 * connection closed first never races; one idle this long costs one new connection.
 */
export const KEPT_IDLE_MS = 1_000;

export function keptConnections(): KeptConnections {
  let strayed = false;
  function onStray(this: Duplex): void {
    strayed = true;
    this.destroy();
  }
  const guard = <A extends HttpAgent>(agent: A): A => {
    const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
    const reuse = agent.reuseSocket.bind(agent);
    // Node calls these two around each wait (documented for Agent subclasses): the listener hears
    // only what comes while no request owns the connection.
    agent.keepSocketAlive = (socket: Duplex) => {
      if (strayed || !keep(socket)) return false;
      socket.on('data', onStray);
      return true;
    };
    agent.reuseSocket = (socket, request) => {
      socket.off('data', onStray);
      reuse(socket, request);
    };
    return agent;
  };
  // `timeout` closes a kept connection once idle that long (Node's Agent: free sockets only).
  const http = guard(new HttpAgent({ keepAlive: true, timeout: KEPT_IDLE_MS }));
  const https = guard(new HttpsAgent({ keepAlive: true, timeout: KEPT_IDLE_MS }));
  return {
    'http:': http,
    'https:': https,
    strayed: () => strayed,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}
