/** OAuth / OIDC / pages / control API operations, by operationId. */
import type { Handler, Middleware, Sim } from '../types.js';

export const oauthHandlers: Record<string, Handler> = {};
export const oauthMiddlewares: Middleware[] = [];

/** The accounts and applications every simulator starts with (see the target config). */
export function seedAccounts(_sim: Sim): void {}
