/**
 * A premise's question, asked at most once per run (one caps object a run) whichever check meets it
 * first, the later ones awaiting the same answer. One that could not be asked (it threw: no code
 * flow) is asked again by the next check. rest-tokens.ts and userinfo-premise.ts ask theirs so.
 */
import type { Capabilities, CheckContext } from '../types.js';

export function oncePerRun<T>(ask: (t: CheckContext) => Promise<T>): (t: CheckContext) => Promise<T> {
  const verdicts = new WeakMap<Capabilities, Promise<T>>();
  return (t) => {
    let verdict = verdicts.get(t.caps);
    if (!verdict) {
      verdict = ask(t);
      verdicts.set(t.caps, verdict);
      verdict.catch(() => verdicts.delete(t.caps));
    }
    return verdict;
  };
}
