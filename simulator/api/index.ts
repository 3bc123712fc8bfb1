/** REST API v4 operations, by operationId. */
import type { Handler, Middleware } from '../types.js';

export const apiHandlers: Record<string, Handler> = {};
export const apiMiddlewares: Middleware[] = [];
