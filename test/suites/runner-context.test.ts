/**
 * The check context's assertions, exact: what each one counts as evidence (assertions, named
 * rules, "named none"), what it throws, how soft failures are kept, and what a failed property
 * reports (message, details, counterexample redacted, the shrunk case's exchanges).
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEvidence, MAX_FAILURES, REPLAY_HELD } from '../../suites/runner/context.js';
import { CheckFailure, CheckSkipped, HarnessError, NoVerdict } from '../../suites/runner/errors.js';
import { createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import type { CheckContext } from '../../suites/types.js';
import { softOnce } from '../../suites/shared/rules.js';
import { describeFailure } from '../../suites/runner/session.js';
import type { RuleId } from '../../spec/index.js';
import { fakeCheckContext, fakeRules } from './fakes.js';

const SEED = 42;
const RUNS = 10;

function context(judged?: Parameters<typeof createEvidence>[0]) {
  const evidence = createEvidence(judged);
  const recorder = createRecorder();
  const t = fakeCheckContext({
    seed: SEED,
    numRuns: RUNS,
    recorder,
    redactor: createRedactor(['secret-value-1']),
    evidence,
  });
  return { t, evidence, recorder };
}

const note = (recorder: ReturnType<typeof createRecorder>, url: string) =>
  recorder.add({ request: { method: 'GET', url, headers: {} } });

/** What a promise rejected with. */
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => e,
  );

describe('assertions as evidence', () => {
  it('t.expect that holds counts once per call; naming no rule speaks for all', () => {
    const { t: ctx, evidence } = context();
    const t: CheckContext = ctx;
    t.expect(true, 'a');
    t.expect(1, 'b');
    expect(evidence).toEqual({
      assertions: 2,
      rules: new Set(),
      held: new Set(),
      unnamed: true,
      heldUnnamed: true,
      failures: [],
      unshown: 0,
    });
  });

  it('t.expect naming rules records them, and only them', () => {
    const { t: ctx, evidence } = context();
    const t: CheckContext = ctx;
    t.expect(true, 'a', { rules: fakeRules('T-MUST') });
    t.expect(true, 'b', { rules: fakeRules('T-MUST', 'T-SHOULD') });
    expect(evidence).toEqual({
      assertions: 2,
      rules: new Set(['T-MUST', 'T-SHOULD']),
      held: new Set(['T-MUST', 'T-SHOULD']),
      unnamed: false,
      heldUnnamed: false,
      failures: [],
      unshown: 0,
    });
  });

  it('t.expect that fails and t.fail throw the message and details, counted once', () => {
    const { t, evidence } = context();
    const details = { rules: fakeRules('T-MUST'), status: 500 };
    expect(() => t.expect(0, 'wrong', details)).toThrow(new CheckFailure('wrong', details));
    expect(evidence.assertions).toBe(1);
    let thrown: unknown;
    try {
      t.fail('broke', details);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(CheckFailure);
    expect([(thrown as CheckFailure).message, (thrown as CheckFailure).details]).toEqual(['broke', details]);
    // Named by two assertions that both failed: T-MUST never held.
    expect(evidence).toEqual({
      assertions: 2,
      rules: new Set(['T-MUST']),
      held: new Set(),
      unnamed: false,
      heldUnnamed: false,
      failures: [],
      unshown: 0,
    });
  });

  it('t.soft answers a boolean, keeps each failing message once, and goes on', () => {
    const { t, evidence } = context();
    expect(t.soft(1, 'a')).toBe(true);
    expect(t.soft('', 'b', { rules: fakeRules('T-SHOULD') })).toBe(false);
    expect(t.soft(null, 'b')).toBe(false);
    expect(t.soft(0, 'c')).toBe(false);
    expect(evidence.assertions).toBe(4);
    expect(evidence.failures.map((f) => [f.message, f.details])).toEqual([
      ['b', { rules: ['T-SHOULD'] }],
      ['c', undefined],
    ]);
  });

  it('t.harness and t.skip throw their own kinds', () => {
    const { t, evidence } = context();
    expect(() => t.harness('no button')).toThrow(new HarnessError('no button'));
    expect(() => t.skip('no fixture')).toThrow(new CheckSkipped('no fixture'));
    expect(evidence.assertions).toBe(0);
  });
});

describe('t.property', () => {
  it('runs numRuns cases drawn from the run seed', async () => {
    const { t } = context();
    const drawn: number[] = [];
    await t.property(fc.integer(), async (n) => void drawn.push(n));
    const expected: number[] = [];
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (n) => void expected.push(n)),
      { seed: SEED, numRuns: RUNS },
    );
    expect(drawn).toEqual(expected);
    expect(drawn).toHaveLength(RUNS);
  });

  it('a predicate that returns nothing asserts nothing by itself; one that answers true is one assertion', async () => {
    const quiet = context();
    await quiet.t.property(fc.nat(), async () => undefined);
    expect(quiet.evidence).toEqual({
      assertions: 0,
      rules: new Set(),
      held: new Set(),
      unnamed: false,
      heldUnnamed: false,
      failures: [],
      unshown: 0,
    });
    const judged = context();
    await judged.t.property(fc.nat(), async (n) => n >= 0);
    expect(judged.evidence).toEqual({
      assertions: 1,
      rules: new Set(),
      held: new Set(),
      unnamed: true,
      heldUnnamed: true,
      failures: [],
      unshown: 0,
    });
    const named = context();
    await named.t.property(fc.nat(), async (n) => named.t.expect(n >= 0, 'x', { rules: fakeRules('T-MUST') }));
    expect(named.evidence).toEqual({
      assertions: RUNS,
      rules: new Set(['T-MUST']),
      held: new Set(['T-MUST']),
      unnamed: false,
      heldUnnamed: false,
      failures: [],
      unshown: 0,
    });
  });

  it('a predicate that returns false: our sentence, the shrunk case redacted, and its exchanges alone', async () => {
    const { t, evidence, recorder } = context();
    note(recorder, 'before');
    const calls: string[] = [];
    const error = await rejection(
      t.property(fc.constantFrom('secret-value-1', 'other-value'), async (s) => {
        calls.push(s);
        note(recorder, s);
        return false;
      }),
    );
    expect(error).toBeInstanceOf(CheckFailure);
    const failure = error as CheckFailure;
    expect(failure.message).toBe('the property returned false');
    expect(failure.counterexample).toBe('["secr…"]');
    expect(failure.details).toEqual({ shrinks: 0, seed: SEED, path: '0' });
    // The shrunk case ran once more, after the recorder was cleared.
    expect(calls.at(-1)).toBe('secret-value-1');
    expect(recorder.exchanges.map((e) => e.request.url)).toEqual(['secret-value-1']);
    expect(evidence.assertions).toBe(1);
  });

  it('a shrunk case that passes when run again to record it says so: the exchanges shown are not the failure', async () => {
    const { t, recorder } = context();
    let first = true;
    const error = await rejection(
      t.property(fc.constant('case'), async () => {
        note(recorder, first ? 'failing answer' : 'passing answer');
        const held = !first;
        first = false;
        // A flaky target: this case fails the first time only.
        return held;
      }),
    );
    const failure = error as CheckFailure;
    expect(failure.message).toBe(`the property returned false${REPLAY_HELD}`);
    expect(failure.details).toMatchObject({ replay: 'passed' });
    expect(recorder.exchanges.map((e) => e.request.url)).toEqual(['passing answer']);
  });

  it('a failed assertion inside keeps its message and details, with where fast-check found it', async () => {
    const { t } = context();
    const error = await rejection(
      t.property(fc.integer({ min: 0, max: 100 }), async (n) =>
        t.expect(n < 10, `n=${n} is too big`, { rules: fakeRules('T-MUST'), status: 400 }),
      ),
    );
    const failure = error as CheckFailure;
    expect(failure.message).toBe('n=10 is too big');
    expect(failure.counterexample).toBe('[10]');
    expect(failure.details).toMatchObject({ rules: ['T-MUST'], status: 400, seed: SEED });
    expect(Object.keys(failure.details!).sort()).toEqual(['path', 'rules', 'seed', 'shrinks', 'status']);
  });

  it('an error thrown inside is the harness’s trouble: thrown on as it is, never a failure', async () => {
    const thrown = async (value: unknown) => {
      const { t } = context();
      return rejection(
        t.property(fc.nat(), async () => {
          throw value;
        }),
      );
    };
    const typeError = new TypeError('bad n');
    expect(await thrown(typeError)).toBe(typeError);
    const harness = new HarnessError('no button');
    expect(await thrown(harness)).toBe(harness);
    expect(await thrown('a string')).toBe('a string');
  });

  it('a skip inside is the check’s skip, as thrown', async () => {
    const { t } = context();
    const skip = new CheckSkipped('no fixture');
    expect(
      await rejection(
        t.property(fc.nat(), async () => {
          throw skip;
        }),
      ),
    ).toBe(skip);
  });

  it('a property fast-check gave up on (every case skipped) is the harness’s trouble, not a failure', async () => {
    const { t, recorder } = context();
    note(recorder, 'kept');
    const error = await rejection(
      t.property(fc.nat(), async () => {
        fc.pre(false);
      }),
    );
    expect(error).toEqual(new HarnessError('the property ran no case: fast-check skipped all 1001 it generated'));
    expect(error).toBeInstanceOf(HarnessError);
    expect(recorder.exchanges.map((e) => e.request.url)).toEqual(['kept']);
  });
});

describe('a case whose answer decides nothing (NoVerdict)', () => {
  it('is discarded and replaced: the decided cases still find the failure', async () => {
    const { t: ctx } = context();
    const t: CheckContext = ctx;
    let cases = 0;
    const error = await rejection(
      t.property(fc.nat(99), async (n) => {
        cases++;
        if (n % 2) throw new NoVerdict('odd: no verdict');
        t.expect(n < 50, `${n} is too big`);
      }),
    );
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as CheckFailure).message).toMatch(/is too big/);
    expect(cases).toBeGreaterThan(1);
  });

  it('skips the check with its reason only when no case was decided, after at most twice numRuns cases', async () => {
    const { t: ctx } = context();
    const t: CheckContext = ctx;
    let cases = 0;
    const error = await rejection(
      t.property(fc.nat(), async () => {
        cases++;
        throw new NoVerdict('nothing to judge');
      }),
    );
    expect(error).toBeInstanceOf(CheckSkipped);
    expect((error as Error).message).toBe('nothing to judge');
    expect(cases).toBe(2 * RUNS);
  });

  it('counts a case that returned without asserting as undecided too: the check is skipped, not errored', async () => {
    // authorize.ts returns early for a mutation equal to the registered URI; with every other case
    // undecided, the check asserted nothing and errored (exit 2) instead of being skipped.
    const { t: ctx, evidence } = context();
    const t: CheckContext = ctx;
    const error = await rejection(
      t.property(fc.nat(), async (n) => {
        if (n % 2) return;
        throw new NoVerdict('nothing to judge');
      }),
    );
    expect(error).toBeInstanceOf(CheckSkipped);
    expect((error as Error).message).toBe('nothing to judge');
    expect(evidence.assertions).toBe(0);
  });

  it('counts a case deciding through softOnce as decided, its sentence said already: not skipped', async () => {
    // softOnce recorded nothing once its sentence was said (earlier in the check): every such case
    // counted as undecided, and with the others NoVerdict the check was skipped though it judged.
    const { t: ctx, evidence } = context();
    const t: CheckContext = ctx;
    softOnce(t, 'header', false, 'page 0 lacks the header');
    const outcome = await rejection(
      t.property(fc.nat(), async (n) => {
        if (n % 2) throw new NoVerdict('nothing to judge');
        softOnce(t, 'header', n > 1e9, `page ${n} lacks the header`);
      }),
    );
    expect(outcome).toBe('resolved');
    expect(evidence.assertions).toBeGreaterThan(1);
    expect(evidence.failures.map((f) => f.message)).toEqual(['page 0 lacks the header']);
  });

  it('does not skip when one case was decided', async () => {
    const { t: ctx, evidence } = context();
    const t: CheckContext = ctx;
    let first = true;
    await t.property(fc.nat(), async () => {
      if (!first) throw new NoVerdict('nothing to judge');
      first = false;
      t.expect(true, 'decided', { rules: ['GRANT-CODE-FLOW'] });
    });
    expect(evidence.assertions).toBe(1);
  });
});

describe('review 9: notes, repeats and unshown failures', () => {
  it('t.note masks before it cuts: a secret across the cut shows no part', () => {
    const { t, evidence } = context();
    t.note(`decided nothing: ${'x'.repeat(370)} secret-value-1 and more`);
    expect(evidence.notes![0]).not.toContain('secret-');
  });

  it('t.note cuts a long note without splitting a surrogate pair', () => {
    const { t, evidence } = context();
    t.note(`${'x'.repeat(399)}\u{1F600} more`);

    // A lone surrogate is half a character, which no format writes.
    expect(evidence.notes![0]).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it("softOnce: one key two rule sets share is one sentence, blamed once, on the first failure's rules", () => {
    const seen: Array<[readonly string[] | undefined, boolean]> = [];
    const { t, evidence } = context((rules, held) => seen.push([rules, held]));
    const first = ['PAG-X-PAGE-STARTS-AT-1'] as RuleId[];
    const later = ['PAG-OFFSET-HEADERS'] as RuleId[];
    softOnce(t, 'x-page', false, 'page 1 says x-page 0', { rules: first });
    softOnce(t, 'x-page', false, 'page 3 says x-page 2', { rules: later });
    // x-page counted from 0 breaks every page alike: one cause, never the later pages' rule beside it.
    expect(seen.every(([rules]) => rules === first)).toBe(true);
    expect(evidence.failures.map((f) => f.message)).toEqual(['page 1 says x-page 0']);
  });

  it('unshown counts distinct failures beyond the kept ones, not their repeats', () => {
    const { t, evidence } = context();
    for (let i = 0; i < MAX_FAILURES; i++) t.soft(false, `other ${i}`);
    for (let page = 1; page <= 50; page++) softOnce(t, 'links', false, `page ${page} carries Links`);
    for (let run = 0; run < 100; run++) t.soft(false, 'same sentence');
    t.soft(false, 'another sentence');
    expect(evidence.unshown).toBe(3);
  });
});

describe('review 10: unshown messages held small, target line breaks kept inside their line', () => {
  it('unshown remembers each message by a fixed-size digest, never the message itself', () => {
    const { t, evidence } = context();
    for (let i = 0; i < MAX_FAILURES; i++) t.soft(false, `other ${i}`);
    const long = 'x'.repeat(100_000);
    for (let i = 0; i < 20; i++) t.soft(false, `${i} ${long}`);
    t.soft(false, `0 ${long}`);
    expect(evidence.unshown).toBe(20);
    // The memory a flood of distinct megabyte messages may take is the digests' (4 MB x 120 answers: +1 GB).
    const held = [...evidence.unshownSeen!].reduce((sum, key) => sum + key.length, 0);
    expect(held).toBeLessThanOrEqual(20 * 64);
  });

  const forged = 'x\n(2/2) PASSED (no failure)\r\n(+9 more failures of this check not shown)\rz';

  it('a failure quoting a target value with line breaks says it on one line, the breaks written \\n and \\r', () => {
    const said = describeFailure(new CheckFailure(`refused: ${forged}`, { errorDescription: forged, status: 400 }));
    expect(said).not.toMatch(/[\r\n]/);
    expect(said).toBe(
      'refused: x\\n(2/2) PASSED (no failure)\\r\\n(+9 more failures of this check not shown)\\rz ' +
        '(errorDescription: x\\n(2/2) PASSED (no failure)\\r\\n(+9 more failures of this check not shown)\\rz; status: 400)',
    );
  });

  it('a value that is blank or padded is quoted as JSON, so the reader sees it (review 21)', () => {
    const said = describeFailure(
      new CheckFailure('the redirect must carry state exactly as sent', {
        sent: '        ',
        returned: null,
        kept: ' a',
      }),
    );
    expect(said).toBe('the redirect must carry state exactly as sent (sent: "        "; returned: null; kept: " a")');
    expect(describeFailure(new CheckFailure('x', { state: 'plain value' }))).toBe('x (state: plain value)');
  });

  it('a note quoting a target value with line breaks stays one line, and is said once', () => {
    const { t, evidence } = context();
    t.note(`the page said ${forged}`);
    t.note(`the page said ${forged}`);
    expect(evidence.notes).toEqual([
      'the page said x\\n(2/2) PASSED (no failure)\\r\\n(+9 more failures of this check not shown)\\rz',
    ]);
  });
});
