/**
 * A device verification page in two steps (RFC 8628 §5.4): the simulator's code form, its
 * Continue replaced by the provider's own button, which goes on to a second page of the
 * provider's own (not the simulator's confirmation), whose answer is posted back to the
 * simulator's POST /oauth/device as its `decision`. Each provider
 * draws the second page and names what its buttons post (oidc-provider's confirm=yes/no,
 * Keycloak's accept/cancel).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Sim } from '../../simulator/types.js';
import { bodyOf, sendAnswer, simulatorAnswerTo } from '../suites/loopback.js';
import { escaped } from './sign-in-journey.js';

/** The simulator's code form's one button (simulator/pages/device.ts). */
const CODE_BUTTON = '<button type="submit">Continue</button>';

/** A request's headers to hand on (its body is sent anew, so no content-length). */
export function headersOf(raw: IncomingMessage['headers']): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') headers.set(k, v);
  headers.delete('content-length');
  return headers;
}

/** The posted fields as hidden inputs of the second page's form. */
export const hiddenInputs = (form: URLSearchParams) =>
  [...form].map(([k, v]) => `<input type="hidden" name="${escaped(k)}" value="${escaped(v)}">`).join('');

export interface SecondStep {
  /** Where the code form posts. */
  path: string;
  /** The code form's one button. */
  button: string;
  /** The second page, given the code form's fields; its form posts to /oauth/device. */
  page(form: URLSearchParams): string;
  /** The decision the second page's answer makes (its own fields removed from `form`), or none. */
  decide(form: URLSearchParams): 'approve' | 'deny' | undefined;
}

/** The handler for simulatorWith: true for the requests the two steps answer. */
export function twoStepDevice(
  sim: () => Sim,
  base: () => string,
  step: SecondStep,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = new URL(req.url ?? '/', base());
    if (url.pathname === '/oauth/device' && req.method === 'GET') {
      sendAnswer(
        res,
        simulatorAnswerTo(sim(), req, url).then(async (answer) => {
          const html = (await answer.text())
            .replace('action="/oauth/device"', `action="${step.path}"`)
            .replace(CODE_BUTTON, step.button);
          return new Response(html, { status: answer.status, headers: answer.headers });
        }),
      );
      return true;
    }
    if (url.pathname === step.path && req.method === 'POST') {
      sendAnswer(
        res,
        bodyOf(req).then(
          (body) =>
            new Response(step.page(new URLSearchParams(body.toString('utf8'))), {
              headers: { 'content-type': 'text/html; charset=utf-8' },
            }),
        ),
      );
      return true;
    }
    if (url.pathname === '/oauth/device' && req.method === 'POST') {
      sendAnswer(
        res,
        bodyOf(req).then((body) => {
          const form = new URLSearchParams(body.toString('utf8'));
          const decision = step.decide(form);
          if (decision) form.set('decision', decision);
          return sim().handle(new Request(url, { method: 'POST', headers: headersOf(req.headers), body: form }));
        }),
      );
      return true;
    }
    return false;
  };
}
