/**
 * Failure text intact: every failure message of a run, rendered as every report shows it, keeps
 * each word of what the check said, and no secret the simulator handed out survives. The secrets
 * are read from the simulator's own store (not from the harness's redactor, which is under test).
 */
import { expect } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { seeded } from '../../simulator/oauth/accounts.js';
import type { Sim } from '../../simulator/types.js';
import { formatConsole, renderHtml, renderJson, renderJunit, renderMarkdown, redact } from '../../reporters/index.js';
import { mask } from '../../suites/report/redact.js';
import type { Report } from '../../suites/report/model.js';
import { CheckFailure } from '../../suites/runner/errors.js';
import { describeFailure } from '../../suites/runner/session.js';
import { createEmbeddedTarget } from '../../suites/target/embedded.js';
import type { Target } from '../../suites/target/types.js';
import type { Check } from '../../suites/types.js';

/** Shorter values are common words or numbers; a secret the simulator mints is longer. */
const MIN_SECRET = 8;

export interface Witness {
  target: Target;
  /** The checks, each remembering what it said when it failed. */
  checks: Check[];
  /** Assert every failure of the report kept its words and leaked no secret. */
  verify(report: Report): void;
}

/** Fields of a JSON answer that carry a secret the simulator hands out. */
const SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'device_code', 'user_code', 'secret', 'token'];

/**
 * Every secret the simulator handed out so far. Its store keeps only keyed hashes (issue 13), so
 * the plaintexts are read where they leave it: the seeded credentials and each answer.
 */
async function harvest(sim: Sim, response: Response, into: Set<string>): Promise<void> {
  const add = (v: unknown) => typeof v === 'string' && v.length >= MIN_SECRET && into.add(v);
  const accounts = seeded(sim);
  for (const user of [accounts.admin, accounts.user, accounts.twoFactorUser]) add(user.password);
  for (const app of Object.values(accounts.applications)) add(app.secret);
  add(accounts.personalAccessToken);
  const location = response.headers.get('location');
  if (location) add(new URL(location, 'http://x').searchParams.get('code'));
  if (!response.headers.get('content-type')?.includes('json')) return;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (SECRET_FIELDS.includes(k)) add(x);
        else walk(x);
      }
  };
  walk(
    await response
      .clone()
      .json()
      .catch(() => null),
  );
}

export async function witness(faults: string[], checks: Check[]): Promise<Witness> {
  const sim = createSimulator({ faults });
  const secrets = new Set<string>();
  // reply, not handle: the embedded target calls reply directly (handle is reply behind Fetch).
  const reply = sim.reply.bind(sim);
  sim.reply = async (request) => {
    const answer = await reply(request);
    await harvest(sim, answer instanceof Response ? answer : answer.toResponse(), secrets);
    return answer;
  };
  // What each check said when it failed: the error it threw and every soft assertion that did not hold.
  const said = new Map<string, string[]>();
  const say = (id: string, failure: CheckFailure) => said.set(id, [...(said.get(id) ?? []), describeFailure(failure)]);
  const wrapped = checks.map((check) => ({
    ...check,
    run: async (t: Parameters<Check['run']>[0]) => {
      const soft: typeof t.soft = (condition, message, details) => {
        if (!condition) say(check.id, new CheckFailure(message, details));
        return t.soft(condition, message, details);
      };
      try {
        await check.run({ ...t, soft });
      } catch (error) {
        if (error instanceof CheckFailure) say(check.id, error);
        throw error;
      }
    },
  }));
  const target = await createEmbeddedTarget(sim);
  return {
    target,
    checks: wrapped,
    verify(report) {
      // What this says when it fails goes to the test log: the secrets in it are masked too.
      const hide = (text: string) => [...secrets].reduce((t, s) => t.split(s).join(mask(s)), text);
      const shown = redact(report);
      for (const check of shown.checks) {
        if (check.status !== 'failed' && check.status !== 'warned') continue;
        for (const raw of said.get(check.id) ?? []) {
          const lost = lostWords(raw, check.message ?? '', secrets);
          expect(lost, `${check.id} lost words:\n  said:  ${hide(raw)}\n  shown: ${hide(check.message ?? '')}`).toEqual(
            [],
          );
        }
      }
      const renderers = {
        json: renderJson,
        junit: renderJunit,
        html: renderHtml,
        md: renderMarkdown,
        console: formatConsole,
      };
      const leaked = Object.entries(renderers).flatMap(([name, render]) => {
        const text = render(report);
        return [...secrets].filter((s) => text.includes(s)).map((s) => `${mask(s)} in the ${name} report`);
      });
      expect(leaked, 'secrets in a rendered report').toEqual([]);
    },
  };
}

/** The words of `raw` (split on white space) that `shown` no longer has; secrets are meant to go. */
export function lostWords(raw: string, shown: string, secrets: Set<string>): string[] {
  const words = raw.split(/\s+/).filter(Boolean);
  // The message is cut at 400 characters of details; only what was not cut is compared.
  let from = 0;
  const lost: string[] = [];
  for (const word of words) {
    if ([...secrets].some((s) => word.includes(s))) continue;
    const at = shown.indexOf(word, from);
    if (at < 0) lost.push(word);
    else from = at + word.length;
  }
  return lost;
}
