/**
 * The CheckContext a check runs with: its own recorder, flows and failure helpers, sharing the
 * session's target, driver and capabilities.
 */
import { createHash } from 'node:crypto';
import * as fc from 'fast-check';
import type { CheckContext, FailureDetails } from '../types.js';
import { CheckFailure, CheckSkipped, HarnessError, NoVerdict, OversizedAnswer } from './errors.js';
import type { TrackedFlows } from './oauth.js';
import type { Recorder } from './http.js';
import type { Redactor } from './redact.js';
import { cut, oneLine } from '../report/cut.js';
import { reportsIt } from './reported-by.js';

/** What every check of a session shares, as the session holds it (one field list: CheckContext's). */
export type SessionGround = Pick<
  CheckContext,
  'config' | 'release' | 'offering' | 'caps' | 'http' | 'driver' | 'seed' | 'inForce'
>;

/** The session's ground plus what each check gets of its own. */
export interface ContextParts
  extends SessionGround, Pick<CheckContext, 'numRuns' | 'slow' | 'waitingFor' | 'deadlineLeftMs' | 'reportedBy'> {
  oauth: TrackedFlows;
  recorder: Recorder;
  redactor: Redactor;
  evidence: Evidence;
}

/**
 * What a check asserted, so the runner can tell "seen to hold" from "saw nothing": the number of
 * assertions, the rules they named, whether one named none, and the soft failures recorded so far.
 */
/**
 * The most failures a check keeps. A target answering every request wrong in a new way (a fresh
 * `error` each time) made one failure a request: 200 in one check, each quoting its answer.
 */
export const MAX_FAILURES = 10;

export interface Evidence {
  assertions: number;
  rules: Set<string>;
  /** The rules named by assertions that held: what a failed check still proves (session.ts failed). */
  held: Set<string>;
  /** An assertion named no rule: it speaks for the check's rule only when the check has one. */
  unnamed: boolean;
  /** Such an assertion held: what a failed check still proves of its one rule (session.ts failed). */
  heldUnnamed: boolean;
  failures: CheckFailure[];
  /** What the check said beside its verdict (t.note), bounded: the message carries it. */
  notes?: string[];
  /** Failures of soft assertions beyond MAX_FAILURES, each message once: counted, not kept. */
  unshown: number;
  /** A digest of each message unshown counted, at most MAX_UNSHOWN (a message may quote megabytes). */
  unshownSeen?: Set<string>;
  /** Sees each assertion as it is judged: the rules it names (none: the check's) and whether it held. */
  judged?: (rules: readonly string[] | undefined, held: boolean) => void;
}

export const createEvidence = (judged?: Evidence['judged']): Evidence => ({
  assertions: 0,
  rules: new Set(),
  held: new Set(),
  unnamed: false,
  heldUnnamed: false,
  failures: [],
  unshown: 0,
  ...(judged ? { judged } : {}),
});

/** The most unshown messages remembered to count each once (the memory a flood may take): past it, "at least". */
export const MAX_UNSHOWN = 1000;

/**
 * One more failure not kept, unless its message was counted already (a repeat is no new failure).
 * Each is remembered by its sha256, not whole: a target answering every request with a new 4 MB
 * error kept a thousand of them (120 answers took 1 GB of heap; a run could die with no report).
 */
function countUnshown(evidence: Evidence, message: string): void {
  const seen = (evidence.unshownSeen ??= new Set());
  if (seen.size >= MAX_UNSHOWN) return;
  const key = createHash('sha256').update(message).digest('base64');
  if (seen.has(key)) return;
  seen.add(key);
  evidence.unshown++;
}

/** How many notes a check's message carries, and how much of each (a note may quote the target). */
const NOTES = 5;
const NOTE_CHARACTERS = 400;

function noteAssertion(evidence: Evidence, details: FailureDetails | undefined, held: boolean): void {
  evidence.assertions++;
  evidence.judged?.(details?.rules, held);
  if (details?.rules?.length)
    for (const id of details.rules) {
      evidence.rules.add(id);
      if (held) evidence.held.add(id);
    }
  else {
    evidence.unnamed = true;
    if (held) evidence.heldUnnamed = true;
  }
}

/** Said after a failure whose shrunk case passed when run again to record its exchanges. */
export const REPLAY_HELD =
  " (run once more to record its exchanges, the same case passed: the target answered it differently, and the exchanges shown are that second run's)";

/** A predicate that returned false, said in a sentence. */
const FALSE_PROPERTY = 'the property returned false';

export function createCheckContext(parts: ContextParts): CheckContext {
  const { evidence } = parts;
  const fail = (message: string, details?: FailureDetails): never => {
    noteAssertion(evidence, details, false);
    throw new CheckFailure(message, details);
  };

  const property = async (...args: unknown[]): Promise<void> => {
    const predicate = args[args.length - 1] as (...values: unknown[]) => Promise<boolean | void>;
    const arbitraries = args.slice(0, -1) as fc.Arbitrary<unknown>[];
    // A predicate that answers true or false is itself an assertion, naming no rule (it speaks for
    // the check's rule when it has one); one that returns nothing proves only what its t.expect/t.soft name.
    let judged = false;
    // The harness's own trouble (a HarnessError, a crash, a target that stopped answering) is no
    // counterexample. Before any case failed, the first such trouble ends the property (later cases
    // throw it again at once) and the check, as it would end a check outside a property. While
    // shrinking a real failure, it only halts the shrinking: the last failing case stands.
    let trouble: { error: unknown } | undefined;
    let failedOnce = false;
    let halted = false;
    // A case whose answer said nothing (NoVerdict) is discarded, as fc.pre would, and another drawn
    // in its place, up to numRuns of them (each costs the target a request); then discarded only.
    // The check is skipped with the first one's reason only if no case was decided.
    let decided = 0;
    let undecided: NoVerdict | undefined;
    let undecidedCases = 0;
    const prop = fc.asyncProperty(...(arbitraries as [fc.Arbitrary<unknown>]), async (...values: unknown[]) => {
      if (trouble) throw trouble.error;
      if (halted) return true;
      try {
        const before = evidence.assertions;
        const verdict = await predicate(...values);
        // Decided: it asserted something, or its answer is a verdict. A case that returned early
        // (nothing to judge in it) is no more decided than one whose answer said nothing.
        if (typeof verdict === 'boolean' || evidence.assertions > before) decided++;
        if (typeof verdict === 'boolean') judged = true;
        if (verdict === false) failedOnce = true;
        return verdict;
      } catch (error) {
        if (error instanceof NoVerdict) {
          undecided ??= error;
          if (++undecidedCases > parts.numRuns) return true;
          fc.pre(false);
        }
        // An answer past the harness's limits is no case's verdict: the session blames it once (session.ts oversized).
        if (error instanceof CheckFailure && !(error instanceof OversizedAnswer)) {
          decided++;
          failedOnce = true;
        } else if (fc.PreconditionFailure.isFailure(error)) throw error;
        else if (failedOnce) {
          halted = true;
          return true;
        } else trouble = { error };
        throw error;
      }
    });
    const details = await fc.check(prop, { seed: parts.seed, numRuns: parts.numRuns });
    // Thrown as the check itself would throw it: the session makes it errored (or skipped), never failed.
    if (trouble) throw trouble.error;
    if (undecided && !decided) throw undecided;
    if (judged || details.failed) noteAssertion(evidence, undefined, !details.failed);
    if (!details.failed) return;
    const error = details.errorInstance;
    // fast-check gave up before any case failed (every generated case rejected by fc.pre): the
    // harness could not test, which says nothing about the target.
    if (!details.counterexample)
      throw new HarnessError(`the property ran no case: fast-check skipped all ${details.numSkips} it generated`);
    const counterexample = parts.redactor.text(fc.stringify(details.counterexample));
    // Run the shrunk case once more so the recorded exchanges are the ones that show it (not when
    // the harness's trouble halted shrinking: it would only meet that trouble again).
    // A target that answers the same case differently the second time (a flaky provider) would
    // otherwise show that run's passing exchanges under the failure: said, never hidden.
    let reproduced = true;
    if (!halted) {
      parts.recorder.clear();
      try {
        reproduced = (await predicate(...details.counterexample)) === false;
      } catch {
        /* expected: it is the failing case */
      }
    }
    const base = error instanceof CheckFailure ? error : undefined;
    // Anything but a CheckFailure ended the property above: this one returned false.
    const message = (base?.message ?? FALSE_PROPERTY) + (reproduced ? '' : REPLAY_HELD);
    throw new CheckFailure(
      message,
      {
        ...base?.details,
        shrinks: details.numShrinks,
        seed: details.seed,
        path: details.counterexamplePath,
        ...(reproduced ? {} : { replay: 'passed' }),
      },
      counterexample,
    );
  };

  const { config, release, offering, caps, http, driver, oauth, seed, numRuns, slow, waitingFor, inForce } = parts;
  return {
    config,
    release,
    offering,
    caps,
    http,
    driver,
    oauth,
    seed,
    numRuns,
    slow,
    ...(waitingFor ? { waitingFor } : {}),
    ...(parts.deadlineLeftMs ? { deadlineLeftMs: parts.deadlineLeftMs } : {}),
    reportedBy: parts.reportedBy ?? reportsIt(),
    property: property,
    fail,
    expect(condition: unknown, message: string, details?: FailureDetails): asserts condition {
      if (!condition) fail(message, details);
      noteAssertion(evidence, details, true);
    },
    soft(condition: unknown, message: string, details?: FailureDetails): boolean {
      noteAssertion(evidence, details, !!condition);
      // Inside a property the same assertion fails on many inputs: one failure says it.
      if (!condition && !evidence.failures.some((f) => f.message === message)) {
        if (evidence.failures.length < MAX_FAILURES) evidence.failures.push(new CheckFailure(message, details));
        else countUnshown(evidence, message);
      }
      return !!condition;
    },
    harness(message: string): never {
      throw new HarnessError(message);
    },
    skip(reason: string): never {
      throw new CheckSkipped(reason);
    },
    note(message: string): void {
      const notes = (evidence.notes ??= []);
      // Masked before it is cut: a cut through a secret left its first part unmasked. Said once, on one line.
      const note = cut(oneLine(parts.redactor.text(message)), NOTE_CHARACTERS, () => '…');
      if (notes.length < NOTES && !notes.includes(note)) notes.push(note);
    },
    inForce,
  };
}
