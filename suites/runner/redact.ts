/**
 * The run's redactor: the one masking implementation (reporters/redact.ts) plus memory. Every
 * secret the run meets (configured secrets, tokens in responses, codes in redirects) is remembered,
 * so it is masked again wherever it turns up later: in an HTML page, a message, a counterexample.
 */
import { isSecretName, mask, redactBody, redactExchange, redactHeaders, redactText, redactUrl } from '../../reporters/redact.js';
import type { Exchange } from '../../reporters/types.js';

export { mask, isSecretName };

export interface Redactor {
  /** Remember a secret value so it is masked wherever it appears later. */
  remember(value: string | undefined | null): void;
  text(text: string): string;
  url(url: string): string;
  headers(headers: Headers | Record<string, string>): Record<string, string>;
  /** A body by its content type: form, JSON, or text. */
  body(body: string, contentType: string | null): string;
  /** An exchange recorded earlier, masked again with every secret learned since. */
  exchange(exchange: Exchange): Exchange;
}

/** Values too short to be worth remembering: masking them would shred ordinary words. */
const MIN_REMEMBERED = 6;

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
      if (eq < 0) continue;
      try {
        const name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
        if (isSecretName(name)) remember(decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' ')));
      } catch {
        /* malformed escapes: the pattern-based masking still applies */
      }
    }
  };
  const learnJson = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key !== undefined && isSecretName(key)) remember(value);
    } else if (Array.isArray(value)) value.forEach((v) => learnJson(v, key));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) learnJson(v, k);
  };
  const learnUrl = (url: string) => {
    const q = url.indexOf('?');
    if (q >= 0) learnPairs(url.slice(q + 1).replace(/#/g, '&'));
  };

  return {
    remember,
    text: (text) => redactText(text, options),
    url(url) {
      learnUrl(url);
      return redactUrl(url, options);
    },
    headers(headers) {
      const plain: Record<string, string> = {};
      const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
      for (const [name, value] of entries) {
        const lower = name.toLowerCase();
        if (lower === 'authorization') remember(value.replace(/^\s*\S+\s+/, ''));
        else if (isSecretName(lower)) remember(value);
        if (lower === 'location') learnUrl(value);
        plain[lower] = value;
      }
      return redactHeaders(plain, options);
    },
    body(body, contentType) {
      const type = (contentType ?? '').toLowerCase();
      if (type.includes('json')) {
        try {
          learnJson(JSON.parse(body));
        } catch {
          /* not JSON after all */
        }
      } else if (type.includes('x-www-form-urlencoded')) learnPairs(body);
      return redactBody(body, contentType ?? '', options);
    },
    exchange: (exchange) => redactExchange(exchange, options),
  };
}
