/**
 * Users: the store's real accounts (root and the others OAuth seeds or the control API adds)
 * followed by generated ones. Generated names and usernames are chosen by bucket from sorted
 * word lists, so the generated part is sorted by id, name and username at once: ordering by
 * any of them is a binary search, never a sort.
 */
import type { Store } from '../store.js';
import { FIRST_NAMES, LAST_NAMES, bucket, pad } from './hash.js';
import { BASE, IDS, spread } from './sizes.js';
import { concat, fromArray, generated, mergeSorted, type Seq } from './seq.js';

export interface UserRec {
  id: number;
  username: string;
  name: string;
  email: string | null;
  admin: boolean;
  bot: boolean;
  createdAt: number;
  /** generated nullable boolean (null reads as false) */
  privateProfile: boolean | null;
}

export type UserOrder = 'id' | 'name' | 'username';

export function generatedUserCount(seedSize: number): number {
  return BASE.users * seedSize;
}

export function generatedUser(i: number, count: number): UserRec {
  const b = bucket(i, count, FIRST_NAMES.length * LAST_NAMES.length);
  const first = FIRST_NAMES[Math.floor(b / LAST_NAMES.length)];
  const last = LAST_NAMES[b % LAST_NAMES.length];
  return {
    id: IDS.userBase + i,
    username: `${first.toLowerCase()}.${last.toLowerCase()}${pad(i, 8)}`,
    name: `${first} ${last}`,
    email: null,
    admin: false,
    bot: i % 97 === 96,
    createdAt: spread(i, count),
    privateProfile: i % 3 === 0 ? null : i % 3 === 1,
  };
}

function storeUsers(store: Store): UserRec[] {
  return [...store.users.values()]
    .sort((a, b) => a.id - b.id)
    .map((u) => ({
      id: u.id,
      username: u.username,
      name: u.name,
      email: u.email,
      admin: u.admin,
      bot: false,
      createdAt: u.createdAt > 1e12 ? u.createdAt : u.createdAt * 1000,
      privateProfile: false,
    }));
}

export function compareUsers(order: UserOrder): (a: UserRec, b: UserRec) => number {
  return (a, b) => {
    const ka = a[order];
    const kb = b[order];
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a.id - b.id;
  };
}

/** All users ascending by the order's key (ties by id). */
export function usersSorted(store: Store, seedSize: number, order: UserOrder): Seq<UserRec> {
  const count = generatedUserCount(seedSize);
  const gen = generated(count, (i) => generatedUser(i, count));
  const real = storeUsers(store);
  // store ids all sit below IDS.userBase, so id order is a plain concatenation
  return order === 'id' ? concat(fromArray(real), gen) : mergeSorted(gen, real, compareUsers(order));
}

export function userById(store: Store, seedSize: number, id: number): UserRec | undefined {
  const real = store.users.get(id);
  if (real) return storeUsers({ ...store, users: new Map([[id, real]]) })[0];
  const count = generatedUserCount(seedSize);
  const i = id - IDS.userBase;
  return i >= 0 && i < count ? generatedUser(i, count) : undefined;
}
