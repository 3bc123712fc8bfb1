/**
 * The harness's own trouble with its input: a bad target config or flag, a target that does not
 * answer, an unknown suite or rule, a driver that cannot start, a report that cannot be written.
 * None of these is the provider's failure. The library throws them; only cli/ turns them into one
 * line on stderr and exit code 2, so suites/ and reporters/ never depend on the command line.
 */
export class HarnessInputError extends Error {
  override name = 'HarnessInputError';
}

/** The target config or the run's options are wrong (schema, URL, conflicting choices). */
export class ConfigError extends HarnessInputError {
  override name = 'ConfigError';
}

/** The target does not answer, or lacks what the chosen driver needs. */
export class TargetError extends HarnessInputError {
  override name = 'TargetError';
}

/** The run selects a suite, rule or check that does not exist. */
export class SelectionError extends HarnessInputError {
  override name = 'SelectionError';
}

/** A driver cannot play the user here (no Chromium, no playwright-core, no HTTP target). */
export class DriverError extends HarnessInputError {
  override name = 'DriverError';
}

/** A `--report` spec is malformed or a report cannot be written. */
export class ReportError extends HarnessInputError {
  override name = 'ReportError';
}
