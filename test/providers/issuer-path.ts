/**
 * A provider whose issuer has a path (Keycloak's http://host/realms/NAME): the simulator behind a
 * front that serves it under a realm path, its discovery at {issuer}/.well-known/openid-configuration
 * (OIDC Discovery §4). `rootToo`: the rest of the service stays at the root as well (a REST API at
 * the base URL, the realm's OAuth beside it), but the root has no discovery document. `relative`:
 * the REST API's Link and Location written as relative references (RFC 8288 §3.2, RFC 9110
 * §10.2.2), as a service under a path prefix (`http://host/gitlab/api/v4`) may: a field's first
 * link query-only (`?page=2`), the others path-absolute, the prefix in them; a Location
 * path-relative (`group%2Fnew-name`).
 */
import { createSimulator } from '../../simulator/core.js';
import { writeResponse } from '../../simulator/adapters/node.js';
import type { Sim } from '../../simulator/types.js';
import { everything404, bodyOf, listen, type Loopback } from '../suites/loopback.js';

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

/** `url` (absolute, under the realm) as a reference relative to `asked` (a path under the realm). */
function relativeTo(asked: string, url: string, style: 'link' | 'path-absolute' | 'location'): string {
  const to = new URL(url);
  const from = new URL(asked, to);
  if (style === 'location') {
    const dir = from.pathname.slice(0, from.pathname.lastIndexOf('/') + 1);
    if (to.pathname.startsWith(dir)) return `${to.pathname.slice(dir.length)}${to.search}`;
  }
  return style === 'link' && to.pathname === from.pathname ? to.search || '?' : `${to.pathname}${to.search}`;
}

/** What the simulator wrote, its URLs put under the realm: Location, Link, form actions and links of its pages. */
async function realmAnswer(origin: string, answer: Response, relativeFor?: string): Promise<Response> {
  const head = new Headers(answer.headers);
  const placed = (url: string, style: 'link' | 'path-absolute' | 'location') => {
    const under = underRealm(origin, url);
    return relativeFor && URL.canParse(under, origin)
      ? relativeTo(relativeFor, new URL(under, origin).href, style)
      : under;
  };
  const location = head.get('location');
  if (location) head.set('location', placed(location, 'location'));
  const link = head.get('link');
  if (link)
    head.set(
      'link',
      // The first link-value query-only where it can be, the others path-absolute (the prefix in them).
      link.replace(
        /<([^<>]*)>/g,
        (_, url: string, at: number) => `<${placed(url, at === 0 ? 'link' : 'path-absolute')}>`,
      ),
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

export async function startPathProvider({ rootToo = false, relative = false } = {}): Promise<PathProvider> {
  const sim = createSimulator({});
  let origin = '';
  const front = await listen((req, res) => {
    const path = req.url ?? '/';
    const inRealm = path.startsWith(`${REALM}/`);
    if ((!inRealm && !rootToo) || path.startsWith('/.well-known/')) {
      everything404(req, res);
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
      const api = relative && path.startsWith(`${REALM}/api/`) ? path : undefined;
      await writeResponse(res, inRealm && !rootToo ? await realmAnswer(origin, answer, api) : answer);
    })().catch(() => void res.writeHead(502).end());
  });
  origin = front.url;
  sim.options.issuer = `${origin}${REALM}`;
  return { ...front, sim, issuer: sim.options.issuer };
}
