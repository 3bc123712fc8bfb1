/**
 * The layers of idp-conformance, enforced by `npm run depcheck` (part of `npm test`). Arrows only
 * point down: spec -> simulator, and spec -> suites -> reporters -> cli. Each rule's comment is the
 * sentence a violation prints, naming the wrong arrow.
 */
const HARNESS = '^(suites|reporters|cli|bench)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'spec-is-the-bottom',
      comment:
        'spec must not depend on simulator, suites, reporters, cli or bench: it is the data everything else reads',
      severity: 'error',
      from: { path: '^spec/' },
      to: { path: '^(simulator|suites|reporters|cli|bench)/' },
    },
    {
      name: 'simulator-not-harness',
      comment: 'simulator must not depend on the harness (suites, reporters, cli, bench): it is importable alone',
      severity: 'error',
      from: { path: '^simulator/' },
      to: { path: HARNESS },
    },
    {
      name: 'suites-not-up',
      comment:
        'suites must not depend on reporters, cli or bench: the library throws typed errors and produces the report model, the layers above render and exit',
      severity: 'error',
      from: { path: '^suites/' },
      to: { path: '^(reporters|cli|bench)/' },
    },
    {
      name: 'suites-not-simulator',
      comment:
        'suites must not depend on simulator: drivers read the target config; only suites/target/embedded.ts may load the simulator, lazily',
      severity: 'error',
      from: { path: '^suites/', pathNot: '^suites/target/embedded\\.ts$' },
      to: { path: '^simulator/' },
    },
    {
      name: 'embedded-loads-simulator-lazily',
      comment:
        'suites/target/embedded.ts must import the simulator with a dynamic import() (or types only), so a run against an HTTP target loads no simulator code',
      severity: 'error',
      from: { path: '^suites/target/embedded\\.ts$' },
      to: { path: '^simulator/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'reporters-not-cli',
      comment: 'reporters must not depend on cli or bench: they render reports, cli alone maps errors to exit codes',
      severity: 'error',
      from: { path: '^reporters/' },
      to: { path: '^(cli|bench)/' },
    },
    {
      name: 'simulator-core-without-msw',
      comment: 'only simulator/msw.ts and simulator/adapters/msw.ts may import msw: the main entry must not load it',
      severity: 'error',
      from: { path: '^simulator/', pathNot: '^simulator/(msw|adapters/msw)\\.ts$' },
      to: { path: 'node_modules/msw/' },
    },
    {
      name: 'no-circular',
      comment: 'no module may depend on itself through others: a cycle makes the layers meaningless',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/|\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
