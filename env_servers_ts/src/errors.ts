/**
 * Typed refusals: each maps to the gRPC status the protocol documents, and
 * its message says what the caller should fix.
 */
import { status } from "@grpc/grpc-js";

export class EnvError extends Error {
  constructor(readonly code: status, message: string) { super(message); }
}

export const invalid = (message: string) => new EnvError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new EnvError(status.NOT_FOUND, message);
export const failedPrecondition = (message: string) => new EnvError(status.FAILED_PRECONDITION, message);
export const exhausted = (message: string) => new EnvError(status.RESOURCE_EXHAUSTED, message);

/** The first `limit` UTF-16 units of `text`, without splitting a surrogate pair (a lone
 * surrogate cannot be percent-encoded into grpc-message, and the call would end UNKNOWN). */
export function cut(text: string, limit: number): string {
  const head = text.slice(0, limit);
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}

/** Client input for an error message: JSON-quoted, cut to `limit` characters (the full length named). */
export function quoted(text: string, limit = 64): string {
  return text.length <= limit ? JSON.stringify(text)
    : `${JSON.stringify(cut(text, limit))}... (${text.length} characters)`;
}

/** A status message short enough for any client's metadata limit. */
export const MAX_MESSAGE_CHARS = 1000;
export function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS ? message
    : `${cut(message, MAX_MESSAGE_CHARS)}... (cut at ${MAX_MESSAGE_CHARS} of ${message.length} characters)`;
}
