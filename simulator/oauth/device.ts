/**
 * The device code's life, executed from spec/machines/device-authorization.yaml: each condition
 * and effect the table names is bound here by name; polling (token endpoint), the verification
 * page and the control API all fire the same runner.
 */
import { limits } from '../../spec/index.js';
import type { Sim } from '../types.js';
import type { DeviceCode, User } from '../store.js';
import { fromAlphabet, hexId } from '../random.js';
import { digest, slotOf } from '../digest.js';
import { makeRoom, MOST_HELD, sweepUserCodes } from '../evict.js';
import { applicationById } from './accounts.js';
import { runner } from './machine.js';
import { mintTokens, type Issued } from './tokens.js';

export interface DeviceStep {
  sim: Sim;
  record: DeviceCode;
  user?: User;
  issued?: Issued;
}

export const deviceMachine = runner<DeviceStep>('device-authorization', {
  conditions: {
    // The fault device-code-never-expires sets expiresIn (authorize-device.ts).
    code_expired: (x) => x.sim.clock.nowSeconds() >= x.record.createdAt + x.record.expiresIn,
    // lastPollAt is in milliseconds of the simulator clock
    too_fast: (x) =>
      !x.sim.fault('no-slow-down') &&
      x.record.lastPollAt !== null &&
      x.sim.clock.now() - x.record.lastPollAt < x.record.interval * 1000,
  },
  effects: {
    grow_interval: (x) => {
      x.record.interval += limits().slowDownIncrement;
    },
    record_poll: (x) => {
      x.record.lastPollAt = x.sim.clock.now();
    },
    issue_tokens: (x) => {
      const app = applicationById(x.sim, x.record.applicationId) ?? null;
      x.issued = mintTokens(x.sim, { userId: x.record.userId!, app, scopes: x.record.scopes, refresh: false });
    },
    // Only approve and deny rows bind, and both callers (the verification page, the control API)
    // always name the deciding user; the poll, which has none, never reaches this effect.
    bind_user: (x) => {
      x.record.userId = x.user!.id;
    },
  },
});

/**
 * Fire a trigger and move the record to the row's next state. The poll throws the row's OAuth
 * error; the page and the control API render the row themselves (throws false).
 */
export function fireDevice(x: DeviceStep, trigger: string, throws = false) {
  return deviceMachine.advance(x, {
    from: x.record.state,
    trigger,
    save: (next) => (x.record.state = next),
    stay: { state: 'consumed', fault: 'device-code-reusable' },
    throws,
  });
}

/** RFC 8628 §6.1: consonants only (no words, no look-alikes), shown as XXXX-XXXX. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_GROUP = 4;

export function newUserCode(): string {
  const raw = fromAlphabet(USER_CODE_GROUP * 2, USER_CODE_ALPHABET);
  return `${raw.slice(0, USER_CODE_GROUP)}-${raw.slice(USER_CODE_GROUP)}`;
}

/** What a person types: case, spaces and dashes do not matter. */
export function normalizeUserCode(value: string): string {
  const compact = value.toUpperCase().replace(/[^A-Z]/g, '');
  return compact.length === USER_CODE_GROUP * 2
    ? `${compact.slice(0, USER_CODE_GROUP)}-${compact.slice(USER_CODE_GROUP)}`
    : compact;
}

/**
 * The device authorizations by slot (digest.ts slotOf): deviceCodes by their device code's digest,
 * userCodes by their user code's, one record a slot (issuance draws again while a slot is held),
 * so a typed or polled code is one probe and a comparison of the whole digest. Digests only: a
 * user code lets whoever types it bind the device to an account, so it is a secret like the
 * device code. In the store: reset drops them, eviction sweeps them.
 */
function live(sim: Sim, record: DeviceCode): boolean {
  return sim.clock.nowSeconds() < record.createdAt + record.expiresIn;
}

/** The stored device authorization whose device code has this digest. */
function byDigest(sim: Sim, wanted: string): DeviceCode | undefined {
  const record = sim.store.deviceCodes.get(slotOf(wanted));
  return record?.digest === wanted ? record : undefined;
}

/** The device authorization a device presents (the poll), if stored. */
export function deviceByCode(sim: Sim, deviceCode: string): DeviceCode | undefined {
  return byDigest(sim, digest(deviceCode));
}

/** Room for one more device authorization: the oldest go with their user codes (evict.ts, MOST_HELD). */
export function makeRoomForDeviceCode(sim: Sim): void {
  const { deviceCodes, userCodes } = sim.store;
  // Only its own entry: an expired record's user code slot may already name a newer authorization.
  makeRoom(deviceCodes, MOST_HELD.deviceCodes, (record) => {
    const slot = slotOf(record.userCodeDigest);
    if (userCodes.get(slot) === record) userCodes.delete(slot);
  });
}

/** A new device code whose slot no stored authorization holds, with its digest. */
export function issueDeviceCode(sim: Sim): { deviceCode: string; deviceDigest: string } {
  let deviceCode: string;
  let deviceDigest: string;
  do {
    deviceCode = hexId(32);
    deviceDigest = digest(deviceCode);
  } while (sim.store.deviceCodes.has(slotOf(deviceDigest)));
  return { deviceCode, deviceDigest };
}

/**
 * A user code whose slot no live device authorization holds (AUTH-BRUTE-FORCE-THROTTLED, RFC 8628
 * §6.1), with its digest; storeDeviceCode indexes it.
 */
export function issueUserCode(sim: Sim): { userCode: string; userCodeDigest: string } {
  let userCode: string;
  let userCodeDigest: string;
  let held: DeviceCode | undefined;
  do {
    userCode = newUserCode();
    userCodeDigest = digest(userCode);
    held = sim.store.userCodes.get(slotOf(userCodeDigest));
  } while (held && live(sim, held) && byDigest(sim, held.digest) === held);
  return { userCode, userCodeDigest };
}

/**
 * Store a device authorization under both its codes. Index entries whose authorization left the
 * store go with every eviction sweep (evict.ts) and, between sweeps (a frozen clock), once the
 * index outgrows the store.
 */
export function storeDeviceCode(sim: Sim, record: DeviceCode): void {
  const { deviceCodes, userCodes } = sim.store;
  deviceCodes.set(slotOf(record.digest), record);
  userCodes.set(slotOf(record.userCodeDigest), record);
  if (userCodes.size > 2 * deviceCodes.size + 1024) sweepUserCodes(sim.store);
}

export function deviceByUserCode(sim: Sim, value: string): DeviceCode | undefined {
  const wanted = digest(normalizeUserCode(value));
  const slot = slotOf(wanted);
  const record = sim.store.userCodes.get(slot);
  if (record?.userCodeDigest !== wanted) return undefined;
  if (byDigest(sim, record.digest) === record) return record;
  sim.store.userCodes.delete(slot);
  return undefined;
}
