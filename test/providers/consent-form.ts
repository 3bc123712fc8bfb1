/**
 * The simulator's consent form, for providers that draw or place the consent elsewhere (a script's
 * page, another application): its hidden fields read off the page, and the decision posted back to
 * the simulator as the signed-in user.
 */
import type { Sim } from '../../simulator/types.js';

const HIDDEN = /<input type="hidden" name="([^"]*)" value="([^"]*)"/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** A value of the simulator's markup, its entities decoded. */
export const unescaped = (v: string) =>
  v.replace(/&#(\d+);|&(amp|lt|gt|quot);/g, (_m, n: string | undefined, name: string | undefined) =>
    n ? String.fromCharCode(Number(n)) : ENTITIES[name!],
  );

/** The hidden fields of a simulator page (the consent form, the sign-in form's token). */
export const hiddenFields = (html: string) =>
  new URLSearchParams([...html.matchAll(HIDDEN)].map(([, k, v]) => [k, unescaped(v)]));

/** Which consent a provider remembers: the client and the scopes. */
export const consentKey = (fields: URLSearchParams) => `${fields.get('client_id')} ${fields.get('scope')}`;

/** The consent form's decision posted to the simulator at `origin` as the session `cookie`: its redirect. */
export function decideAt(
  sim: Sim,
  origin: string,
  fields: URLSearchParams,
  decision: 'approve' | 'deny',
  cookie: string,
): Promise<Response> {
  const body = new URLSearchParams(fields);
  body.set('decision', decision);
  return sim.handle(
    new Request(`${origin}/oauth/authorize`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin },
      body,
      redirect: 'manual',
    }),
  );
}
