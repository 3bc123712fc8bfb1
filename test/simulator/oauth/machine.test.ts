/**
 * The generic machine runner on the real tables with bindings written here: a binding that lacks
 * a condition or an effect, a trigger with no row, the order of effects, and advance(): the
 * client error first, the state saved unless the stay fault holds, the row's exact OAuth error.
 */
import { describe, expect, it } from 'vitest';
import type { FaultName } from '../../../spec/index.js';
import { OAuthError } from '../../../simulator/oauth/errors.js';
import { runner, type Subject } from '../../../simulator/oauth/machine.js';
import type { Sim } from '../../../simulator/types.js';

interface Ctx extends Subject {
  holds: Set<string>;
  log: string[];
}

const sim = (faults: string[] = []) => ({ fault: (name: string) => faults.includes(name) }) as unknown as Sim;
const ctx = (holds: string[] = [], faults: string[] = []): Ctx => ({
  sim: sim(faults),
  holds: new Set(holds),
  log: [],
});

const when = (name: string) => (c: Ctx) => {
  c.log.push(`?${name}`);
  return c.holds.has(name);
};
const effect = (name: string) => async (c: Ctx) => {
  await Promise.resolve();
  c.log.push(`!${name}`);
};

const deviceBinding = () => ({
  conditions: { code_expired: when('code_expired'), too_fast: when('too_fast') },
  effects: {
    grow_interval: effect('grow_interval'),
    record_poll: effect('record_poll'),
    issue_tokens: effect('issue_tokens'),
    bind_user: effect('bind_user'),
  },
});

describe('runner: the binding must cover the table', () => {
  it('names every condition and effect the simulator lacks, on first use only', () => {
    const r = runner<Ctx>('device-authorization', {
      conditions: { code_expired: when('code_expired') },
      effects: { record_poll: effect('record_poll'), bind_user: effect('bind_user') },
    });
    expect(() => r.table).toThrow(
      new Error(
        'machine device-authorization: the simulator implements no condition too_fast, effect grow_interval, effect issue_tokens',
      ),
    );
  });

  it('a complete binding gives the table, read once', () => {
    const r = runner<Ctx>('device-authorization', deviceBinding());
    expect(r.table.name).toBe('device-authorization');
    expect(r.table).toBe(r.table);
  });

  it('an unknown machine is named', () => {
    expect(() => runner<Ctx>('nope', deviceBinding()).table).toThrow(/unknown machine nope/);
  });
});

describe('fire', () => {
  it('asks the conditions in table order, takes the first that holds and runs its effects in order', async () => {
    const r = runner<Ctx>('device-authorization', deviceBinding());
    const c = ctx(['too_fast']);
    const row = await r.fire('pending', 'poll', c);
    expect(row).toMatchObject({ condition: 'too_fast', next: 'pending', result: { status: 400, error: 'slow_down' } });
    expect(c.log).toEqual(['?code_expired', '?too_fast', '!grow_interval', '!record_poll']);
  });

  it('answers synchronously when every effect does (no promise per poll), effects still in order', () => {
    const log = (name: string) => (c: Ctx) => void c.log.push(`!${name}`);
    const r = runner<Ctx>('device-authorization', {
      conditions: deviceBinding().conditions,
      effects: {
        grow_interval: log('grow_interval'),
        record_poll: log('record_poll'),
        issue_tokens: log('issue_tokens'),
        bind_user: log('bind_user'),
      },
    });
    const c = ctx(['too_fast']);
    const row = r.fire('pending', 'poll', c);
    expect(row).not.toBeInstanceOf(Promise);
    expect(row).toMatchObject({ condition: 'too_fast', next: 'pending' });
    expect(c.log).toEqual(['?code_expired', '?too_fast', '!grow_interval', '!record_poll']);
    // advance() throws the row's error where it stands, the state saved first.
    const saved: string[] = [];
    expect(() => r.advance(ctx(), { from: 'pending', trigger: 'poll', save: (s) => saved.push(s) })).toThrow(
      OAuthError,
    );
    expect(saved).toEqual(['pending']);
  });

  it('an effect that answers later holds back the effects after it, in order', async () => {
    const c = ctx(['too_fast']);
    const r = runner<Ctx>('device-authorization', {
      ...deviceBinding(),
      effects: { ...deviceBinding().effects, record_poll: (x: Ctx) => void x.log.push('!record_poll') },
    });
    const pending = r.fire('pending', 'poll', c);
    expect(pending).toBeInstanceOf(Promise);
    expect(c.log).toEqual(['?code_expired', '?too_fast']);
    await pending;
    expect(c.log).toEqual(['?code_expired', '?too_fast', '!grow_interval', '!record_poll']);
  });

  it('falls to otherwise when nothing holds', async () => {
    const r = runner<Ctx>('device-authorization', deviceBinding());
    const c = ctx();
    expect(await r.fire('pending', 'poll', c)).toMatchObject({ condition: 'otherwise', next: 'pending' });
    expect(c.log).toEqual(['?code_expired', '?too_fast', '!record_poll']);
  });

  it('a trigger with no row is an error naming the state and the trigger', () => {
    const r = runner<Ctx>('device-authorization', deviceBinding());
    expect(() => r.fire('pending', 'fly', ctx())).toThrow(
      new Error('machine device-authorization: no row for state pending and trigger fly'),
    );
    expect(() => r.fire('nowhere', 'poll', ctx())).toThrow(
      new Error('machine device-authorization: no row for state nowhere and trigger poll'),
    );
  });
});

/** advance() answers synchronously (its throw too) when the effects do: read either way as a promise. */
const later = <T>(f: () => T | Promise<T>): Promise<T> => Promise.resolve().then(f);

describe('advance', () => {
  const r = runner<Ctx>('device-authorization', deviceBinding());

  it('throws the row error described by its condition, after saving the next state', async () => {
    const saved: string[] = [];
    const error = await later(() =>
      r.advance(ctx(['code_expired']), { from: 'pending', trigger: 'poll', save: (s) => saved.push(s) }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).body()).toEqual({
      error: 'expired_token',
      error_description: 'now >= created_at + expires_in of the device code',
    });
    expect((error as OAuthError).status).toBe(400);
    expect(saved).toEqual(['expired']);
  });

  it('an otherwise row is described by its state', async () => {
    const error = (await later(() => r.advance(ctx(), { from: 'pending', trigger: 'poll' })).catch(
      (e: unknown) => e,
    )) as OAuthError;
    expect(error.body()).toEqual({
      error: 'authorization_pending',
      error_description: 'device code issued; the user has not finished on the verification page',
    });
  });

  it('throws false: the row is returned for the caller to render, the state still saved', async () => {
    const saved: string[] = [];
    const row = await r.advance(ctx(), { from: 'pending', trigger: 'poll', save: (s) => saved.push(s), throws: false });
    expect(row).toMatchObject({ result: { error: 'authorization_pending' } });
    expect(saved).toEqual(['pending']);
  });

  it('a row without an error returns, and the state is saved', async () => {
    const saved: string[] = [];
    const row = await r.advance(ctx(), { from: 'authorized', trigger: 'poll', save: (s) => saved.push(s) });
    expect(row.next).toBe('consumed');
    expect(saved).toEqual(['consumed']);
  });

  it('the stay fault keeps the state only for its own state and only when on', async () => {
    const stay = { state: 'consumed', fault: 'device-code-reusable' as FaultName };
    const run = async (faults: string[], from: string) => {
      const saved: string[] = [];
      await later(() => r.advance(ctx([], faults), { from, trigger: 'poll', save: (s) => saved.push(s), stay })).catch(
        () => undefined,
      );
      return saved;
    };
    expect(await run(['device-code-reusable'], 'authorized')).toEqual([]);
    expect(await run([], 'authorized')).toEqual(['consumed']);
    expect(await run(['device-code-reusable'], 'pending')).toEqual(['pending']);
    expect(await run(['other-fault'], 'authorized')).toEqual(['consumed']);
  });

  it('a failed client authentication is answered as itself, before the state changes', async () => {
    const code = runner<Ctx & { clientError?: OAuthError | null }>('authorization-code', {
      conditions: new Proxy(
        {},
        {
          get: (_t, name: string) => when(name),
          has: () => true,
        },
      ),
      effects: new Proxy(
        {},
        {
          get: (_t, name: string) => effect(name),
          has: () => true,
        },
      ),
    });
    const own = new OAuthError('invalid_client', 'the client secret is wrong', 401);
    const saved: string[] = [];
    const c = { ...ctx(['client_auth_failed']), clientError: own };
    await expect(
      later(() => code.advance(c, { from: 'issued', trigger: 'exchange', save: (s) => saved.push(s) })),
    ).rejects.toBe(own);
    expect(saved).toEqual([]);
    // Without the client's own error the row's error is thrown, described by the condition.
    const bare = { ...ctx(['client_auth_failed']), clientError: null };
    const error = (await later(() =>
      code.advance(bare, { from: 'issued', trigger: 'exchange', save: (s) => saved.push(s) }),
    ).catch((e: unknown) => e)) as OAuthError;
    expect(error.body()).toEqual({
      error: 'invalid_client',
      error_description: "a confidential application's client_secret is missing or wrong, or the client_id is unknown",
    });
    expect(error.status).toBe(401);
    expect(saved).toEqual(['issued']);
    // A client error that is not the row taken is ignored.
    const other = { ...ctx([]), clientError: own };
    const row = await code.advance(other, { from: 'issued', trigger: 'exchange', throws: false });
    expect(row.condition).not.toBe('client_auth_failed');
  });
});
