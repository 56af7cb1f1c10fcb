/**
 * Errors the console answers with: each carries its HTTP status beside the
 * stable code, and the server turns it into `{"error": {code, message}}`.
 * Anything else that escapes a handler is a 500 with a generic message (the
 * details go to the console's log, never to the client).
 */
import { ArchiverError } from '../core/errors.js';

export class ConsoleError extends ArchiverError {
  readonly status: number;
  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

export const badRequest = (message: string): ConsoleError => new ConsoleError(400, 'ARCHIVER_CONSOLE_BAD_REQUEST', message);
export const notFound = (message: string): ConsoleError => new ConsoleError(404, 'ARCHIVER_CONSOLE_NOT_FOUND', message);
export const conflict = (message: string): ConsoleError => new ConsoleError(409, 'ARCHIVER_CONSOLE_CONFLICT', message);

/** The console could not listen on the address asked for. */
export class ConsoleListenError extends ArchiverError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ARCHIVER_CONSOLE_LISTEN', message, options);
  }
}
