/**
 * The client's side of the traffic: habits of the application behind the proxy that the protocol
 * asks it not to have. They are not the provider's failures, so they are not rules of the report:
 * each is counted and reported in a section of its own ("client"), with a sentence that never
 * quotes a secret.
 */

/** Each habit the proxy notices, and the sentence the report prints for it. */
export const CLIENT_HABITS = {
  'polls-too-fast': 'polled the device grant sooner than the interval the provider asked for (RFC 8628 §3.5)',
  'ignores-slow-down': 'polled again sooner than the grown interval after slow_down (RFC 8628 §3.5)',
  'no-pkce': 'sent an authorization request without code_challenge (PKCE, RFC 7636; RFC 9700 §2.1.1)',
  'reuses-code': 'sent an authorization code that was already redeemed (RFC 6749 §4.1.2)',
  'builds-page-urls':
    'requested a page of a listing that no Link (nor x-next-page or x-prev-page) the proxy forwarded had named (RFC 8288)',
  'ignores-retry-after':
    'sent a request again sooner than the Retry-After of the rate-limited answer it was given (RFC 9110 §10.2.3; RFC 6585 §4)',
} as const;

export type ClientHabit = keyof typeof CLIENT_HABITS;

export interface ClientNote {
  habit: ClientHabit;
  /** Where: method and path, never the query (it may carry a code or a token). */
  where: string;
}

/** Where the judge reports a habit it noticed. */
export type ClientSink = (note: ClientNote) => void;
