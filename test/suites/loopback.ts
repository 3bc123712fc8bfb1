/**
 * Loopback servers that are not good providers: a static file server, one that answers 500 or
 * HTML to everything, and the simulator with some paths made hostile (endless bodies, bodies
 * shorter than announced, slow answers). For the run's own honesty tests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulator } from '../../simulator/core.js';
import { toNodeListener, writeResponse } from '../../simulator/adapters/node.js';
import type { Sim, SimulatorOptions } from '../../simulator/types.js';
import { executeRun, type RunFlags } from '../../cli/run.js';
import type { Check } from '../../suites/types.js';
import type { Target } from '../../suites/target/types.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Loopback {
  url: string;
  close(): Promise<void>;
}

export async function listen(handler: Handler): Promise<Loopback> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request's whole body. */
export async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Answer with what `answer` resolves to (the simulator adapter's writer), or 502 if it fails. */
export function sendAnswer(res: ServerResponse, answer: Promise<Response>): void {
  void answer.then(
    (r) => writeResponse(res, r),
    () => void res.writeHead(502).end(),
  );
}

/**
 * The headers of `req` as a server of another origin passes them on to the simulator server-side
 * (Hydra's login and consent applications call Hydra so): without the browser's Origin and
 * Sec-Fetch-*, which describe that server's page, and which the simulator's forms would refuse.
 */
export function relayedHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && k !== 'origin' && !k.startsWith('sec-fetch-')) headers.set(k, v);
  return headers;
}

/**
 * The simulator's answer to `req` asked at `url` (its headers as sent unless given, its body read
 * first): a test provider that serves an endpoint at another path or origin hands it on so.
 */
export function simulatorAnswerTo(sim: Sim, req: IncomingMessage, url: URL, headers?: Headers): Promise<Response> {
  const sent = headers ?? new Headers();
  if (!headers) for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') sent.set(k, v);
  const method = req.method ?? 'GET';
  return bodyOf(req).then((body) =>
    sim.handle(
      new Request(url, {
        method,
        headers: sent,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: new Uint8Array(body) }),
      }),
    ),
  );
}

/** The simulator's JSON document at `url` (its discovery document): what a test provider edits before serving it as its own. */
export async function simulatorDocument(sim: Sim, url: URL | string): Promise<Record<string, unknown>> {
  return (await (await sim.handle(new Request(url))).json()) as Record<string, unknown>;
}

/** Drain the request body first, so the client's write never races our answer. */
const answer =
  (status: number, type: string, body: string): Handler =>
  (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  };

/** What `python3 -m http.server` answers in an empty folder: HTML listing at /, 404 HTML elsewhere. */
export const staticFiles: Handler = (req, res) =>
  (req.url === '/' || req.url?.startsWith('/?')
    ? answer(
        200,
        'text/html; charset=utf-8',
        '<!DOCTYPE HTML><html><body><h1>Directory listing for /</h1></body></html>',
      )
    : req.method === 'GET' || req.method === 'HEAD'
      ? answer(
          404,
          'text/html;charset=utf-8',
          '<html><body><h1>Error response</h1><p>Error code: 404</p></body></html>',
        )
      : answer(501, 'text/html;charset=utf-8', '<html><body><p>Error code: 501</p></body></html>'))(req, res);

export const everything404: Handler = answer(404, 'text/plain', 'Not Found');
export const everything500: Handler = answer(500, 'text/plain', 'Internal Server Error');
export const htmlEverywhere: Handler = answer(200, 'text/html', '<!doctype html><title>Welcome</title><p>Hello');

/** An endless chunked body, as fast as the socket takes it. */
export const endlessBody: Handler = (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  res.write('{"keys":"');
  pump();
};

/** Announces `length` bytes, sends a few, then never more (the socket stays open). */
export const shortBody =
  (length: number): Handler =>
  (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(length) });
    res.write('{"keys":[');
  };

/** The simulator over HTTP, with `hostile` answering the requests it wants (return true) instead. */
export async function simulatorWith(
  hostile: (req: IncomingMessage, res: ServerResponse) => boolean,
  options: SimulatorOptions & { delayMs?: number } = {},
): Promise<Loopback & { sim: Sim }> {
  const { delayMs = 0, ...simOptions } = options;
  const sim = createSimulator(simOptions);
  const listener = toNodeListener(sim);
  const served = await listen((req, res) => {
    if (hostile(req, res)) return;
    if (delayMs > 0) setTimeout(() => listener(req, res), delayMs);
    else listener(req, res);
  });
  return { ...served, sim };
}

/**
 * The simulator over HTTP, the answers to the requests `rewrites` picks (by method and URL) handed
 * to `rewrite` before they go out: a test provider that changes what a real one changes (a status,
 * a label, a body) and leaves the rest to the simulator.
 */
export async function simulatorRewriting(
  rewrites: (method: string, url: URL) => boolean,
  rewrite: (answer: Response, url: URL) => Response | Promise<Response>,
): Promise<Loopback & { sim: Sim }> {
  let base = '';
  const served = await simulatorWith((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (!rewrites(req.method ?? 'GET', url)) return false;
    sendAnswer(
      res,
      simulatorAnswerTo(served.sim, req, url).then((answer) => rewrite(answer, url)),
    );
    return true;
  });
  base = served.url;
  return served;
}

/** `idp-conformance run` in process, its output captured; a chosen set of checks or all. */
export async function runCli(
  flags: RunFlags,
  /** `target`: the run's own target (an HTTP target with a virtual clock), as a library caller gives it. */
  options: { checks?: Check[]; tty?: boolean; env?: NodeJS.ProcessEnv; target?: () => Promise<Target> } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await executeRun(
    flags,
    {
      out: (t) => void out.push(t),
      err: (t) => void err.push(t),
      ...(options.checks ? { checks: () => options.checks! } : {}),
      ...(options.target ? { target: options.target } : {}),
      stdoutTty: options.tty,
      stderrTty: options.tty,
    },
    options.env ?? {},
  );
  return { code, out: out.join(''), err: err.join('') };
}
