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
