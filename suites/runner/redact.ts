/**
 * The run's redactor: the one masking implementation (suites/report/redact.ts) plus memory. Every
 * secret the run meets (configured secrets, tokens in responses, codes in redirects) is learned as
 * exchanges happen, so it is masked wherever it turns up later: in an HTML page, a message, a
 * counterexample. Masking itself happens only for what leaves the run (a failure's exchanges and
 * messages): a run makes thousands of requests and shows a handful.
 */
import { isSecretName, mask, redactExchange, redactText, redactUrl } from '../report/redact.js';
import { tooDeep } from '../report/json-depth.js';
import type { Exchange } from '../report/model.js';

export { mask, isSecretName };

export interface Redactor {
  /** Remember a secret value so it is masked wherever it appears later. */
  remember(value: string | undefined | null): void;
  /** Learn the secrets an exchange carries (cheap; called for every exchange). */
  learn(exchange: Exchange): void;
  text(text: string): string;
  url(url: string): string;
  /** An exchange as a report may show it: masked with every secret learned so far, bodies cut short. */
  exchange(exchange: Exchange): Exchange;
}

/** Values too short to be worth remembering: masking them would shred ordinary words. */
const MIN_REMEMBERED = 6;
/** Bodies larger than this are not searched for secrets to learn: token responses are small. */
const LEARN_BODY_LIMIT = 16 * 1024;
/** A body that names none of these carries no secret field worth parsing it for. */
const SECRETISH = /token|secret|password|passwd|code|verifier|key/i;
/** Bodies in a report are cut here; a page of HTML says nothing more after it. */
export const BODY_LIMIT = 2000;

const clip = (s: string) => (s.length > BODY_LIMIT ? `${s.slice(0, BODY_LIMIT)}… (${s.length} characters)` : s);

function header(headers: Record<string, string>, name: string): string {
  // Stryker disable next-line StringLiteral: an absent type reads as neither JSON nor form, like any other
  return Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1] ?? '';
}

export function createRedactor(initial: Array<string | undefined> = []): Redactor {
  const secrets = new Set<string>();
  const remember = (value: string | undefined | null) => {
    if (typeof value === 'string' && value.length >= MIN_REMEMBERED) secrets.add(value);
  };
  initial.forEach(remember);
  const options = { secrets };

  /** Learn the secret values of `name=value` pairs (query strings, form bodies). */
  const learnPairs = (search: string) => {
    for (const pair of search.split('&')) {
      const eq = pair.indexOf('=');
      // isSecretName decodes a name itself and ignores its punctuation, '+' for a space included.
      // Stryker disable next-line EqualityOperator: a pair starting with '=' has an empty name, never a secret one
      if (eq < 0 || !isSecretName(pair.slice(0, eq))) continue;
      try {
        remember(decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' ')));
      } catch {
        /* malformed escapes: the pattern-based masking still applies */
      }
    }
  };
  const learnJson = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      // Stryker disable next-line ConditionalExpression: isSecretName(undefined) reads "undefined", no secret name
      if (key !== undefined && isSecretName(key)) remember(value);
    } else if (Array.isArray(value)) value.forEach((v) => learnJson(v, key));
    // Any other value but null: the entries of a number or a boolean are none.
    else if (value) for (const [k, v] of Object.entries(value)) learnJson(v, k);
  };
  /** The query and the fragment (a front-channel answer may carry a token there, query or not). */
  const learnUrl = (url: string) => {
    const q = url.search(/[?#]/);
    if (q >= 0) learnPairs(url.slice(q + 1).replace(/#/g, '&'));
  };
  const learnHeaders = (headers: Record<string, string>) => {
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (lower === 'authorization') remember(value.replace(/^\s*\S+\s+/, ''));
      else if (lower === 'location') learnUrl(value);
      else if (isSecretName(lower)) remember(value);
    }
  };
  const learnBody = (body: string | undefined, contentType: string) => {
    if (!body || body.length > LEARN_BODY_LIMIT || !SECRETISH.test(body) || tooDeep(body)) return;
    if (contentType.includes('json')) {
      try {
        learnJson(JSON.parse(body));
      } catch {
        /* not JSON after all */
      }
    } else if (contentType.includes('x-www-form-urlencoded')) learnPairs(body);
  };

  return {
    remember,
    learn({ request, response }) {
      learnUrl(request.url);
      learnHeaders(request.headers);
      learnBody(request.body, header(request.headers, 'content-type'));
      if (response) {
        learnHeaders(response.headers);
        learnBody(response.body, header(response.headers, 'content-type'));
      }
    },
    text: (text) => redactText(text, options),
    url: (url) => redactUrl(url, options),
    exchange(exchange) {
      const safe = redactExchange(exchange, options);
      if (safe.request.body !== undefined) safe.request.body = clip(safe.request.body);
      if (safe.response?.body !== undefined) safe.response.body = clip(safe.response.body);
      return safe;
    },
  };
}
