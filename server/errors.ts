// The one error type of Varal: a closed set of codes, each with its HTTP status.
// Messages say what to do next; they never carry a stack trace or a secret.

export const ERROR_STATUS = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  not_supported: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

// Next.js bundles a module into each route and into the instrumentation hook apart, so a
// VaralError thrown by code the hook loaded (the action handlers) is not an instance of
// the route's copy of the class. A brand in the global symbol registry is the same in
// every copy: instanceof and isVaralError check it.
const BRAND = Symbol.for("varal.VaralError");

export class VaralError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly details?: unknown;
  /** Extra response headers, such as Retry-After on 429. */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: unknown, headers?: Record<string, string>) {
    super(message);
    this.name = "VaralError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toJSON(): { error: { code: ErrorCode; message: string; details?: unknown } } {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

export function isVaralError(error: unknown): error is VaralError {
  return error instanceof VaralError;
}

/**
 * What an operator's request that needs a broker answers when the broker fails it: the
 * broker's own refusals as they are, anything else (a connection refused, a timeout) as
 * 503 naming the broker and the cause.
 */
export function brokerFailure(error: unknown, broker: string, what: string): VaralError {
  if (isVaralError(error)) return error;
  return new VaralError("unavailable", `${what} needs broker ${broker}, which failed: ${describeError(error).replace(/\.+$/, "")}. Check that it is up and reachable, then try again.`);
}

/** A short, safe description of any thrown value, for logs and lastError fields. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
