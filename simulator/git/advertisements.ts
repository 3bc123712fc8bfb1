/**
 * The ref advertisement (`info/refs`) of a repository, kept until a push may change its refs. Each
 * answer was a `git http-backend` process: about a tenth of a whole conformance run's CPU went to
 * spawning them (the Git checks ask once per property run), for the same bytes every time. Kept
 * per process, as the repositories are (repository.ts), by everything the CGI output depends on.
 */
import { httpBackend, type CgiRequest } from './backend.js';

interface Kept {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

/** Repository root → request key → its advertisement (a promise: concurrent askers share one process). */
const kept = new Map<string, Map<string, Promise<Kept>>>();

/**
 * Keys kept per repository. A key holds what the client sends (the query, the Git-Protocol
 * header): a client sending a new value each time made a new entry each time, without end. Git
 * clients send a few (two services, two protocol versions, a user or two); past this the table
 * starts again.
 */
export const KEYS_PER_REPOSITORY = 16;

/** How many advertisements are kept for this repository (tests read the bound). */
export const keptAdvertisements = (root: string): number => kept.get(root)?.size ?? 0;

/** A receive-pack request may move refs: the next advertisement asks git again. */
export function forgetAdvertisements(root: string): void {
  kept.delete(root);
}

async function keep(request: CgiRequest): Promise<Kept> {
  const response = await httpBackend(request);
  return {
    status: response.status,
    headers: [...response.headers],
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

export async function advertisement(request: CgiRequest): Promise<Response> {
  const key = JSON.stringify([request.method, request.query, request.gitProtocol, request.remoteUser]);
  let byKey = kept.get(request.projectRoot);
  if (!byKey) kept.set(request.projectRoot, (byKey = new Map<string, Promise<Kept>>()));
  let pending = byKey.get(key);
  if (!pending) {
    if (byKey.size >= KEYS_PER_REPOSITORY) byKey.clear();
    pending = keep(request);
    byKey.set(key, pending);
    // A failed backend (500) is not kept: the next request tries again.
    void pending.then(
      (k) => k.status >= 500 && byKey.get(key) === pending && byKey.delete(key),
      () => byKey.get(key) === pending && byKey.delete(key),
    );
  }
  const { status, headers, body } = await pending;
  return new Response(status === 204 || status === 304 ? null : body.slice(), { status, headers });
}
