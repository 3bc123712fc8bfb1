/**
 * `idp-conformance proxy`: a recording reverse proxy on loopback between a client and the
 * provider. It forwards the traffic untouched, judges each exchange passively (suites/proxy),
 * and on SIGINT or SIGTERM writes the per-rule report and exits (1 when a must rule broke).
 */
import type { Command } from 'commander';
import { profiles, releaseProblem, type Offering } from '../spec/index.js';
import { checkReportTargets, formatConsole, parseReportSpecs, shouldColor, writeReports } from '../reporters/index.js';
import { ruleCatalogueEntries } from '../spec/catalogue.js';
import { createFlows, judgeExchange, pageInFront } from '../suites/proxy/judge.js';
import { unservedOf, WALL_SNIFF_CHARS, type Unserved } from '../suites/target/unserved.js';
import { untrustedCertificate } from '../suites/target/tls.js';
import {
  DEFAULT_PROXY_BODY_BYTES,
  DEFAULT_PROXY_CONNECTIONS,
  DEFAULT_PROXY_TIMEOUT_MS,
  KEPT_BODIES_BUDGET,
  startProxy,
} from '../suites/proxy/server.js';
import { createTally, proxyReport } from '../suites/proxy/tally.js';
import { exitCodeOf } from '../suites/runner/report.js';
import { createRedactor, LEARN_BODY_LIMIT } from '../suites/runner/redact.js';
import type { Observed } from '../suites/proxy/flows.js';
import { basePathOf } from '../suites/proxy/urls.js';
import { isLoopback } from '../simulator/adapters/node.js';
import { quotableUrl } from '../suites/target/url-text.js';
import { UsageError } from './errors.js';
import { untilSignal } from './signals.js';
import { byteSize, integer } from './run.js';
import { checkAllowHosts, collect } from './simulate.js';

export interface ProxyFlags {
  target?: string;
  listen?: string;
  host?: string;
  report?: string;
  release?: string;
  offering?: string;
  rewriteHost?: boolean;
  allowHost?: string[];
  allowOrigin?: string[];
  allowNoReferer?: boolean;
  timeout?: string;
  maxBody?: string;
  maxConnections?: string;
}

function targetUrl(text: string | undefined): URL {
  if (!text) throw new UsageError('proxy needs --target URL, the provider to forward to');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--target expects an absolute http(s) URL, got "${quotableUrl(text)}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password)
    throw new UsageError(
      `--target must be an http(s) URL without query, fragment or credentials, got "${quotableUrl(text)}"`,
    );
  return url;
}

export interface ProxyIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Resolves when the proxy should stop (a signal in the command; a test's own trigger). */
  stop: () => Promise<unknown>;
  /** stderr is a terminal: one live line says how much traffic was judged so far. */
  stderrTty?: boolean;
}

/** How often the live line may be rewritten: the traffic of a busy client must not flood the terminal. */
const LIVE_LINE_MS = 1000;

/**
 * The proxy's progress on a terminal: one line, rewritten as exchanges are judged (at most once a
 * LIVE_LINE_MS), cleared before anything else is written; elsewhere (logs, pipes) nothing.
 */
function liveLine(write: (text: string) => void, tty: boolean) {
  let last = -Infinity;
  let shown = false;
  let closed = false;
  return {
    judged(judged: number, broke: number, now = Date.now()) {
      if (!tty || closed || now - last < LIVE_LINE_MS) return;
      last = now;
      shown = true;
      const exchanges = `${judged} exchange${judged === 1 ? '' : 's'}`;
      write(`\r\u001b[2K${exchanges} judged, ${broke} broke a rule; Ctrl-C writes the report`);
    },
    clear() {
      if (shown) write('\r\u001b[2K');
      shown = false;
    },
    /** Stopping: cleared for good, the report follows. */
    close() {
      this.clear();
      closed = true;
    },
  };
}

/** --allow-origin: an http(s) origin (scheme, host, port; no path), as the browser writes it in Origin. */
function checkOrigin(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  // The serialisation keeps whatever an origin lacks: a path, a query or fragment (even empty), userinfo.
  if (!url || !/^https?:$/.test(url.protocol) || url.href !== `${url.origin}/`)
    throw new UsageError(`--allow-origin expects an origin like https://app.example:8443, got "${value}"`);
  return url.origin;
}

/** The whole command; returns the exit code (0, 1 when a must rule broke, 2 on bad usage). */
export async function executeProxy(flags: ProxyFlags, io: ProxyIo): Promise<number> {
  const target = targetUrl(flags.target);
  const host = flags.host ?? '127.0.0.1';
  // The proxy carries the client's credentials: it serves this machine only.
  if (!isLoopback(host)) throw new UsageError(`--host must be a loopback address (127.0.0.1, ::1), got "${host}"`);
  checkAllowHosts(flags.allowHost);
  const allowOrigins = (flags.allowOrigin ?? []).map(checkOrigin);
  const port = flags.listen === undefined ? 0 : Number(flags.listen);
  if (!/^\d+$/.test(flags.listen ?? '0') || port > 65535)
    throw new UsageError(`--listen must be a port from 0 to 65535, got "${flags.listen}"`);
  const defaults = profiles().defaults;
  const release = flags.release ?? defaults.release;
  const wrong = releaseProblem(release);
  if (wrong) throw new UsageError(`--release: ${wrong}`);
  const offering = (flags.offering ?? defaults.offering) as Offering;
  if (!['self-managed', 'hosted'].includes(offering))
    throw new UsageError(`--offering must be self-managed or hosted, got "${flags.offering}"`);
  const timeoutMs = flags.timeout === undefined ? DEFAULT_PROXY_TIMEOUT_MS : integer('--timeout', flags.timeout, 1);
  const maxBodyBytes = flags.maxBody === undefined ? DEFAULT_PROXY_BODY_BYTES : byteSize('--max-body', flags.maxBody);
  const maxConnections =
    flags.maxConnections === undefined
      ? DEFAULT_PROXY_CONNECTIONS
      : integer('--max-connections', flags.maxConnections, 1);
  const reports = flags.report === undefined ? [] : parseReportSpecs(flags.report);
  await checkReportTargets(reports);

  const flows = createFlows({ release, basePath: basePathOf(target) });
  // What the traffic carries (tokens, codes) is masked wherever a provider quotes it back, as in a run.
  const redactor = createRedactor([], [target.href]);
  const tally = createTally(redactor);
  let judgeErrors = 0;
  // What the target did not answer, by reason, and the HTML pages answered where it answers JSON.
  const unanswered = new Map<string, number>();
  let pages = 0;
  // Answers a bot wall or a gateway gave in the provider's place, by kind.
  const standIns = new Map<Unserved['kind'], number>();
  let broke = 0;
  let clientLeft = 0;
  const live = liveLine(io.err, io.stderrTty === true);
  // A line of its own clears the live one first.
  const say = (text: string) => {
    live.clear();
    io.err(text);
  };
  const startedAt = new Date();
  let proxy;
  try {
    proxy = await startProxy({
      target: target.href,
      host,
      port,
      maxBodyBytes,
      timeoutMs,
      maxConnections,
      rewriteHost: flags.rewriteHost === true,
      allowHosts: flags.allowHost ?? [],
      allowOrigins,
      allowNoReferer: flags.allowNoReferer === true,
      onExchange: (exchange) => {
        // A bot wall or a gateway's page in the provider's place: forwarded as it came, judged as nothing.
        const standIn = unservedOf(exchange.status, exchange.responseHeaders, () =>
          (exchange.responseBody ?? Buffer.alloc(0)).subarray(0, WALL_SNIFF_CHARS).toString('utf8'),
        );
        if (standIn) {
          if (!standIns.has(standIn.kind))
            say(
              standIn.kind === 'wall'
                ? `idp-conformance: the target's bot protection answers in the provider's place (${standIn.what}, ${exchange.status}); such answers are forwarded, not judged\n`
                : `idp-conformance: a gateway answers in the provider's place (${exchange.status}, not JSON: maintenance, or the provider behind it down); such answers are forwarded, not judged\n`,
            );
          standIns.set(standIn.kind, (standIns.get(standIn.kind) ?? 0) + 1);
          return;
        }
        if (pageInFront(exchange)) {
          if (!pages++)
            say(
              'idp-conformance: the target answers an HTML page where the provider answers JSON (a sign-in wall or captive portal in front?); such answers are not judged\n',
            );
          return;
        }
        redactor.learn(learnable(exchange));
        const verdicts = judgeExchange(exchange, flows, (note) => tally.note(note, exchange.number));
        if (verdicts.some((v) => !v.ok)) broke++;
        tally.add(verdicts);
        live.judged(tally.judged, broke);
      },
      onJudgeError: () => judgeErrors++,
      onClientLeft: () => clientLeft++,
      onUnanswered: (reason) => {
        // Said at once, the first time: a client behind a proxy to nowhere sees only 502s.
        const untrusted = untrustedCertificate(target.host, reason);
        if (!unanswered.size)
          say(
            untrusted
              ? `idp-conformance: the target is not trusted: ${untrusted}; its clients get 502\n`
              : `idp-conformance: the target does not answer (${reason}); its clients get 502 or 504\n`,
          );
        unanswered.set(reason, (unanswered.get(reason) ?? 0) + 1);
      },
    });
  } catch (error) {
    throw new UsageError(`cannot listen on ${host}:${port}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  io.out(`${proxy.url}\n`);
  io.err(`idp-conformance: proxying ${proxy.url} to ${target.origin}; Ctrl-C writes the report\n`);
  await io.stop();
  live.close();
  await proxy.close();
  // Exchanges that ended just before the signal are judged before the report is written.
  await new Promise((resolve) => setImmediate(resolve));
  if (judgeErrors) io.err(`idp-conformance: ${judgeErrors} exchanges could not be judged (internal error)\n`);
  const traffic = proxySummary({
    seen: tally.exchanges,
    judged: tally.judged,
    pages,
    unanswered,
    standIns,
    clientLeft,
  });
  const report = proxyReport(tally, {
    target: target.origin + target.pathname,
    release,
    offering,
    startedAt,
    traffic,
  });
  const catalogue = ruleCatalogueEntries([]);
  const written = reports.length ? await writeReports(report, reports, { catalogue }) : [];
  io.out(formatConsole(report, { color: shouldColor({ isTTY: process.stdout.isTTY === true }), written, catalogue }));
  io.out(`idp-conformance: ${traffic}\n`);
  return exitCodeOf(report);
}

/** An exchange as the redactor learns from it; a body too long to be read for secrets is never decoded. */
function learnable(o: Observed) {
  // Three bytes a UTF-16 unit at most: a body of more bytes is past LEARN_BODY_LIMIT characters.
  const text = (body?: Buffer) => (body && body.length <= 3 * LEARN_BODY_LIMIT ? body.toString('utf8') : undefined);
  return {
    request: {
      method: o.method,
      url: o.target,
      headers: Object.fromEntries(o.requestHeaders),
      body: text(o.requestBody),
    },
    response: { status: o.status, headers: Object.fromEntries(o.responseHeaders), body: text(o.responseBody) },
  };
}

/** What passed through the proxy, for its last line. */
export interface ProxySeen {
  /** Exchanges answered by the provider (what follows was not). */
  seen: number;
  /** Of those, the ones some rule judged. */
  judged: number;
  pages: number;
  unanswered: ReadonlyMap<string, number>;
  standIns?: ReadonlyMap<Unserved['kind'], number>;
  /** Requests whose client went away before the answer was whole. */
  clientLeft?: number;
}

/**
 * The last line (and the report's client.traffic): what was seen and judged, and what was not the
 * provider's to judge (requests the target never answered, HTML pages in front of it) or no rule's
 * (a page's assets), so an empty report says why it is empty.
 */
export function proxySummary({
  seen,
  judged,
  pages,
  unanswered,
  standIns = new Map(),
  clientLeft = 0,
}: ProxySeen): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [`${plural(judged, 'exchange')} judged`];
  if (seen > judged) parts.push(`${plural(seen - judged, 'exchange')} no rule judges`);
  const lost = [...unanswered.values()].reduce((a, b) => a + b, 0);
  if (lost)
    parts.push(
      `${plural(lost, 'request')} the target did not answer (${[...unanswered].map(([why, n]) => `${why} ×${n}`).join(', ')})`,
    );
  if (clientLeft) parts.push(`${plural(clientLeft, 'request')} its client left before the answer`);
  if (pages) parts.push(`${plural(pages, 'HTML page')} where the provider answers JSON, not judged`);
  const walls = standIns.get('wall') ?? 0;
  const gateways = standIns.get('gateway') ?? 0;
  if (walls) parts.push(`${plural(walls, 'answer')} of the target's bot protection, not judged`);
  if (gateways) parts.push(`${plural(gateways, 'gateway error page')} in the provider's place, not judged`);
  return parts.join('; ');
}

/** What `proxy --help` ends with: how the end of a session reads. */
const PROXY_EXIT_HELP = `
Exit codes (on Ctrl-C, SIGTERM or SIGHUP (the terminal closed), after the report):
  0    no must rule broke in the traffic seen
  1    a must rule broke
  2    bad usage (one line on stderr), or no exchange was judged (the last line says why)
`;

export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description("recording reverse proxy: forward a client's traffic untouched and judge it against the rules")
    .option('--target <url>', 'base URL of the provider to forward to (required)')
    .option('--listen <port>', 'port to listen on (default: 0, a free one; the URL is printed)')
    .option('--host <address>', 'loopback address to bind', '127.0.0.1')
    .option('--rewrite-host', "send the target's host as Host (virtual hosting) instead of the client's")
    .option(
      '--allow-host <host>',
      'another Host the proxy answers besides its own address, name or name:port (repeatable; others get 403: a DNS-rebinding guard)',
      collect,
    )
    .option(
      '--allow-origin <origin>',
      "a browser page's origin that may send through the proxy besides loopback ones, as scheme://host[:port] (repeatable; other sites' pages get 403)",
      collect,
    )
    .option(
      '--allow-no-referer',
      'accept a top-level visit from another site that sends no Referer (an https sign-in page redirecting back never does; nor does a page that withholds it)',
    )
    .option(
      '--timeout <ms>',
      `how long the target may stay silent before the client gets a 504, in milliseconds (default ${DEFAULT_PROXY_TIMEOUT_MS})`,
    )
    .option(
      '--max-body <size>',
      `largest body kept for judging, e.g. 512k or 4M; a longer one is forwarded whole, judged on headers (default ${DEFAULT_PROXY_BODY_BYTES / (1024 * 1024)}M; at most ${KEPT_BODIES_BUDGET} such copies held at once)`,
    )
    .option(
      '--max-connections <n>',
      `client connections held at once; a further one is closed on arrival (default ${DEFAULT_PROXY_CONNECTIONS})`,
    )
    .option('--report <specs>', 'reports written on Ctrl-C: kind=path,... (json, junit, junit-rules, html, md)')
    .option('--release <release>', `release to hold the provider to (default ${profiles().defaults.release})`)
    .option('--offering <offering>', `self-managed or hosted (default ${profiles().defaults.offering})`)
    .addHelpText('after', PROXY_EXIT_HELP)
    .action(async (flags: ProxyFlags) => {
      process.exitCode = await executeProxy(flags, {
        out: (t) => process.stdout.write(t),
        err: (t) => process.stderr.write(t),
        stop: untilSignal,
        stderrTty: process.stderr.isTTY === true,
      });
    });
}
