#!/usr/bin/env node
/**
 * `npm run mutate [-- module… [--concurrency N] [--mutate file:from-to]]`: Stryker over the core
 * modules, one module at a time against the tests that exercise it, so one module can be rerun
 * alone. Reports land in reports/mutation/<module>.{html,json}; a table of the scores is printed
 * last, and the exit code is 1 when a module scores under the break threshold.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const BREAK = 85;

/**
 * Each module: the files Stryker mutates and the fast, focused test files that exercise them (a
 * static mutant reruns every one of them). `specCache: false` for spec/index.ts: a cache hit
 * would skip the parsing and validation being mutated.
 */
const MODULES = {
  pkce: {
    mutate: ['simulator/oauth/pkce.ts'],
    tests: ['test/simulator/oauth/pkce.test.ts', 'test/simulator/oauth/token.test.ts'],
  },
  device: {
    mutate: ['simulator/oauth/device.ts'],
    tests: ['test/simulator/oauth/device-machine.test.ts', 'test/simulator/oauth/device.test.ts'],
  },
  machine: {
    mutate: ['simulator/oauth/machine.ts'],
    tests: ['test/simulator/oauth/machine.test.ts', 'test/simulator/oauth/device-machine.test.ts'],
  },
  // The rest of simulator/oauth/, in four groups by what they serve; each against the OAuth
  // simulator tests (perTest coverage runs only the tests that reach a mutant).
  'oauth-grants': {
    mutate: ['simulator/oauth/{tokens,token,params,client-auth,revoke,token-info,scopes,bearer,compare}.ts'],
    tests: [
      'test/simulator/oauth/grants-exact.test.ts',
      'test/simulator/oauth/token.test.ts',
      'test/simulator/oauth/client.test.ts',
      'test/simulator/oauth/faults.test.ts',
      'test/simulator/oauth/pkce.test.ts',
      'test/simulator/oauth/device.test.ts',
    ],
  },
  // The grant handlers of the token endpoint (code, refresh, password, device code).
  'oauth-flows': {
    mutate: ['simulator/oauth/grants/*.ts'],
    tests: [
      'test/simulator/oauth/flows-exact.test.ts',
      'test/simulator/oauth/grants-exact.test.ts',
      'test/simulator/oauth/token.test.ts',
      'test/simulator/oauth/pkce.test.ts',
      'test/simulator/oauth/device.test.ts',
      'test/simulator/oauth/faults.test.ts',
    ],
  },
  'oauth-authorize': {
    mutate: [
      'simulator/oauth/{authorize,authorize-request,authorize-decision,session,gates,device-decision,device-page,authorize-device}.ts',
    ],
    // client.test.ts (a real client over HTTP) is left out: its flows are the ones
    // authorize.test.ts and authorize-exact.test.ts drive, and it doubled every survivor's run.
    tests: [
      'test/simulator/oauth/authorize-exact.test.ts',
      'test/simulator/oauth/authorize.test.ts',
      'test/simulator/oauth/device.test.ts',
      'test/simulator/oauth/faults.test.ts',
    ],
  },
  'oauth-identity': {
    mutate: ['simulator/oauth/{accounts,id-token,claims,keys,discovery,userinfo,issuer}.ts'],
    // Every simulator seeds accounts, so each mutant of the seed reruns every test listed here:
    // the focused identity tests, not the whole OAuth suite.
    tests: ['test/simulator/oauth/identity.test.ts', 'test/simulator/oauth/client.test.ts'],
  },
  'oauth-edges': {
    mutate: ['simulator/oauth/{cors,throttle,errors,index}.ts'],
    tests: [
      'test/simulator/oauth/edges.test.ts',
      'test/simulator/oauth/cors-control.test.ts',
      'test/simulator/errors.test.ts',
    ],
  },
  pagination: {
    mutate: ['simulator/api/pagination.ts'],
    tests: [
      'test/simulator/api/pagination-exact.test.ts',
      'test/simulator/api/offset.test.ts',
      'test/simulator/api/faults.test.ts',
    ],
  },
  params: {
    mutate: ['simulator/api/params.ts'],
    tests: ['test/simulator/api/params.test.ts', 'test/simulator/api/encoding.test.ts'],
  },
  spec: {
    mutate: ['spec/index.ts'],
    tests: ['test/spec/accessors.test.ts', 'test/spec/index.test.ts'],
    specCache: false,
  },
  runner: {
    mutate: ['suites/runner/*.ts'],
    tests: [
      'test/suites/runner.test.ts',
      'test/suites/redaction.test.ts',
      'test/suites/runner-units.test.ts',
      'test/suites/runner-pure.test.ts',
      'test/suites/runner-redact-http.test.ts',
      'test/suites/runner-session.test.ts',
      'test/suites/runner-run.test.ts',
      'test/suites/runner-context.test.ts',
      'test/suites/runner-oauth.test.ts',
      'test/suites/runner-capabilities.test.ts',
    ],
  },
  redact: {
    mutate: ['suites/report/redact.ts'],
    tests: [
      'test/reporters/redact.test.ts',
      'test/reporters/redact-exact.test.ts',
      'test/reporters/redact-every-field.test.ts',
    ],
  },
};

function parseArgs(argv) {
  const args = { modules: [], concurrency: 2, mutate: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--concurrency') args.concurrency = Number(argv[++i]);
    else if (a === '--mutate') args.mutate = argv[++i];
    else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else if (!(a in MODULES)) fail(`unknown module ${a}; the modules are ${Object.keys(MODULES).join(', ')}`);
    else args.modules.push(a);
  }
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) fail('--concurrency takes a whole number ≥ 1');
  if (args.mutate && args.modules.length !== 1) fail('--mutate narrows one module: name exactly one');
  if (!args.modules.length) args.modules = Object.keys(MODULES);
  return args;
}

function fail(message) {
  console.error(`mutate: ${message}`);
  process.exit(2);
}

function options(name, module, args) {
  return {
    packageManager: 'npm',
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    vitest: { configFile: 'scripts/vitest.mutate.config.mjs', related: false },
    coverageAnalysis: 'perTest',
    mutate: args.mutate ? [args.mutate] : module.mutate,
    concurrency: args.concurrency,
    // The sandbox lives inside the repository (ignored by git) so `../shared` and the spec
    // cache under node_modules/.cache resolve as they do here; dist and reports stay out.
    tempDirName: '.stryker-tmp',
    ignorePatterns: ['dist', 'reports', 'coverage', '.stryker-tmp'],
    reporters: ['html', 'json', 'progress'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    thresholds: { high: 95, low: BREAK, break: BREAK },
    timeoutMS: 20_000,
    logLevel: 'warn',
    fileLogLevel: 'off',
    cleanTempDir: 'always',
  };
}

function tally(results) {
  const count = (status) => results.filter((r) => r.status === status).length;
  const t = {
    killed: count('Killed'),
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    timeout: count('Timeout'),
  };
  const detected = t.killed + t.timeout;
  const valid = detected + t.survived + t.noCoverage;
  t.score = valid ? (100 * detected) / valid : 100;
  return t;
}

/** The mutants no test noticed, one line each, to read next to the HTML report. */
function printUndetected(results) {
  for (const r of results.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')) {
    const where = `${r.fileName.replace(`${root}/`, '')}:${r.location.start.line}:${r.location.start.column}`;
    const replacement = (r.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100);
    console.log(`  ${r.status.padEnd(10)} ${where} ${r.mutatorName}: ${replacement}`);
  }
}

const args = parseArgs(process.argv.slice(2));
mkdirSync('reports/mutation', { recursive: true });
const rows = [];
for (const name of args.modules) {
  const module = MODULES[name];
  console.log(`\n== ${name}: ${module.mutate.join(' ')}`);
  process.env.MUTATE_TESTS = module.tests.join(',');
  if (module.specCache === false) process.env.IDP_CONFORMANCE_SPEC_CACHE = 'off';
  else delete process.env.IDP_CONFORMANCE_SPEC_CACHE;
  try {
    const results = await new Stryker(options(name, module, args)).runMutationTest();
    rows.push({ name, ...tally(results) });
    printUndetected(results);
  } catch (error) {
    console.error(`mutate: ${name} did not run: ${error?.message ?? error}`);
    rows.push({ name, error: true });
  }
}

const header = ['module', 'killed', 'survived', 'no coverage', 'timeout', 'score'];
const lines = rows.map((r) =>
  r.error
    ? [r.name, '-', '-', '-', '-', 'error']
    : [r.name, r.killed, r.survived, r.noCoverage, r.timeout, `${r.score.toFixed(1)}%`].map(String),
);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
const format = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`\n${format(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const l of lines) console.log(format(l));
const low = rows.filter((r) => r.error || r.score < BREAK).map((r) => r.name);
if (low.length) {
  console.log(`\nunder ${BREAK}%: ${low.join(', ')}`);
  process.exitCode = 1;
}
