/**
 * Failure text intact: every failure message of a run, rendered as every report shows it, keeps
 * each word of what the check said, and no secret the simulator handed out survives. The secrets
 * are read from the simulator's own store (not from the harness's redactor, which is under test).
 */
import { expect } from 'vitest';
import { createSimulator } from '../../simulator/core.js';
import { seeded } from '../../simulator/oauth/accounts.js';
import type { Answer } from '../../simulator/http.js';
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

const UTF8 = new TextDecoder();
/** A JSON answer naming none of SECRET_FIELDS is not parsed (most answers: cheap enough for every one). */
const SECRETISH = new RegExp(`"(${SECRET_FIELDS.join('|')})"`);
const longEnough = (v: unknown): v is string => typeof v === 'string' && v.length >= MIN_SECRET;

/** The seeded credentials: the simulator hands them out (control API config) and keeps them for good. */
function seededSecrets(sim: Sim): string[] {
  const accounts = seeded(sim);
  return [
    ...[accounts.admin, accounts.user, accounts.twoFactorUser].map((user) => user.password),
    ...Object.values(accounts.applications).map((app) => app.secret),
    accounts.personalAccessToken,
  ];
}

/**
 * The secrets an answer hands out: a code in its Location, a secret field of its JSON body. Read
 * from the simulator's Reply as it is (no Fetch Response built for it: the matrices make thousands).
 */
async function handedOut(answer: Answer): Promise<string[]> {
  const found: unknown[] = [];
  const location = answer.headers.get('location');
  if (location) found.push(new URL(location, 'http://x').searchParams.get('code'));
  if (answer.headers.get('content-type')?.includes('json')) {
    const text =
      answer instanceof Response
        ? await answer.clone().text()
        : typeof answer.body === 'string'
          ? answer.body
          : UTF8.decode(answer.body ?? undefined);
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (SECRET_FIELDS.includes(k)) found.push(x);
          else walk(x);
        }
    };
    if (SECRETISH.test(text)) {
      try {
        walk(JSON.parse(text));
      } catch {
        /* not JSON after all */
      }
    }
  }
  return found.filter(longEnough);
}

export async function witness(faults: string[], checks: Check[]): Promise<Witness> {
  const sim = createSimulator({ faults });
  // Every secret the simulator handed out so far. Its store keeps only keyed hashes (issue 13), so
  // the plaintexts are read where they leave it: the seeded credentials and each answer.
  const secrets = new Set<string>(seededSecrets(sim).filter(longEnough));
  // reply, not handle: the embedded target calls reply directly (handle is reply behind Fetch).
  const reply = sim.reply.bind(sim);
  sim.reply = async (request) => {
    const answer = await reply(request);
    for (const secret of await handedOut(answer)) secrets.add(secret);
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
