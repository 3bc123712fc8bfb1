/**
 * One error model: a handler that cannot answer normally throws an HttpError, and core.ts turns
 * it into the response in one place (like node-oidc-provider's error handler). Each family renders
 * its own body shape: OAuth (oauth/errors.ts) `{error, error_description}`, the REST API and the
 * control API `{message}`; anything else thrown is a bug and answers 500.
 */
import { json, redirect, type HeaderInit, type Reply } from './http.js';
import type { Sim } from './types.js';

export abstract class HttpError extends Error {
  readonly status: number;
  readonly headers: HeaderInit;

  constructor(status: number, message: string, headers: HeaderInit = {}) {
    // An answer, not a bug: no stack is captured (it was a tenth of a pending device poll's time).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = status;
    this.headers = headers;
    this.name = new.target.name;
  }

  abstract body(): unknown;

  /** The answer; sim for families whose headers depend on the instance (faults). */
  toResponse(_sim: Sim): Reply {
    return json(this.status, this.body(), this.headers);
  }
}

/** The REST API's error: `{message}` unless a richer body is given (401/403 token errors). */
export class ApiError extends HttpError {
  constructor(
    status: number,
    message: string,
    headers: HeaderInit = {},
    readonly payload: Record<string, unknown> = { message },
  ) {
    super(status, message, headers);
  }

  body(): unknown {
    return this.payload;
  }
}

/** Not an error but an early answer: a REST lookup that found the resource under a new path. */
export class ApiRedirect extends HttpError {
  constructor(
    readonly location: string,
    status: number,
  ) {
    super(status, `moved to ${location}`);
  }

  body(): unknown {
    return null;
  }

  override toResponse(): Reply {
    return redirect(this.location, this.status);
  }
}

/** A control API request the simulator cannot follow (DESIGN.md): `{message}`, 400 unless said. */
export class ControlError extends HttpError {
  constructor(message: string, status = 400) {
    super(status, message);
  }

  body(): unknown {
    return { message: this.message };
  }
}
