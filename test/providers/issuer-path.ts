/**
 * A provider whose issuer has a path (Keycloak's http://host/realms/NAME): the simulator behind a
 * front that serves it under a realm path, its discovery at {issuer}/.well-known/openid-configuration
 * (OIDC Discovery §4). `rootToo`: the rest of the service stays at the root as well (a REST API at
 * the base URL, the realm's OAuth beside it), but the root has no discovery document.
 */
import { createSimulator } from '../../simulator/core.js';
import { writeResponse } from '../../simulator/adapters/node.js';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, listen, type Loopback } from '../suites/loopback.js';

export const REALM = '/realms/conformance';

export interface PathProvider extends Loopback {
  sim: Sim;
  /** The front's origin and the realm's path. */
  issuer: string;
}

/** A URL the simulator wrote (absolute on the front's origin, or path-absolute), put under the realm. */
function underRealm(origin: string, url: string): string {
  if (url.startsWith(`${origin}/`) && !url.startsWith(`${origin}${REALM}/`))
    return `${origin}${REALM}${url.slice(origin.length)}`;
  return url.startsWith('/') && !url.startsWith('//') && !url.startsWith(`${REALM}/`) ? `${REALM}${url}` : url;
}

/** What the simulator wrote, its URLs put under the realm: Location, Link, form actions and links of its pages. */
async function realmAnswer(origin: string, answer: Response): Promise<Response> {
  const head = new Headers(answer.headers);
  const location = head.get('location');
  if (location) head.set('location', underRealm(origin, location));
  const link = head.get('link');
  if (link)
    head.set(
      'link',
      link.replace(/<([^<>]*)>/g, (_, url: string) => `<${underRealm(origin, url)}>`),
    );
  if (!(head.get('content-type') ?? '').startsWith('text/html'))
    return new Response(answer.body, { status: answer.status, headers: head });
  const page = (await answer.text()).replace(
    / (action|href)="([^"]*)"/g,
    (_, attr: string, url: string) => ` ${attr}="${underRealm(origin, url)}"`,
  );
  head.delete('content-length');
  return new Response(page, { status: answer.status, headers: head });
}

export async function startPathProvider({ rootToo = false } = {}): Promise<PathProvider> {
  const sim = createSimulator({});
  let origin = '';
  const front = await listen((req, res) => {
    const path = req.url ?? '/';
    const inRealm = path.startsWith(`${REALM}/`);
    if ((!inRealm && !rootToo) || path.startsWith('/.well-known/')) {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    void (async () => {
      const body = await bodyOf(req);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        for (const one of ([] as string[]).concat(value ?? [])) headers.append(name, one);
      const answer = await sim.handle(
        new Request(`${origin}${inRealm ? path.slice(REALM.length) : path}`, {
          method: req.method,
          headers,
          ...(body.length ? { body: new Uint8Array(body) } : {}),
          redirect: 'manual',
        }),
      );
      await writeResponse(res, inRealm && !rootToo ? await realmAnswer(origin, answer) : answer);
    })().catch(() => void res.writeHead(502).end());
  });
  origin = front.url;
  sim.options.issuer = `${origin}${REALM}`;
  return { ...front, sim, issuer: sim.options.issuer };
}
