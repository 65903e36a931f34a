// The client's one error class. Every failure carries a Kafka error code name — the broker's code
// when the broker answered with one, or the name Kafka's own clients use for the same local
// condition (NETWORK_EXCEPTION for a lost connection, REQUEST_TIMED_OUT for an unanswered request,
// UNSUPPORTED_VERSION when no version is common to both sides, CORRUPT_MESSAGE for a response that
// does not decode, BROKER_NOT_AVAILABLE for a node id the metadata does not list) — so callers
// branch on `code` and never on the message.
import { ErrorCode, type ErrorName, errorByCode } from '../protocol/errors.js'

export class ClientError extends Error {
  /** Kafka's name for the error, e.g. 'NOT_LEADER_OR_FOLLOWER'. */
  readonly code: ErrorName
  /** Kafka's numeric error code (-1 for a code this client does not know). */
  readonly errorCode: number
  /** Whether Kafka's clients would retry the same request. */
  readonly retriable: boolean
  /** The message without the code in front. */
  readonly detail: string

  constructor(code: ErrorName, message?: string, options?: { cause?: unknown }) {
    super(message === undefined ? code : `${code}: ${message}`, options)
    this.name = 'ClientError'
    this.code = code
    this.errorCode = ErrorCode[code].code
    this.retriable = ErrorCode[code].retriable
    this.detail = message ?? code
  }
}

/** Kafka's name for a numeric error code; UNKNOWN_SERVER_ERROR for a code we do not know. */
export function errorName(code: number): ErrorName {
  return (errorByCode(code)?.name as ErrorName | undefined) ?? 'UNKNOWN_SERVER_ERROR'
}

/** Throws a ClientError when a response's error code is not NONE; `context` says which part failed. */
export function throwIfError(code: number, context: string, message?: string | null): void {
  if (code === 0) return
  const name = errorName(code)
  const detail = message ? `${context}: ${message}` : context
  throw new ClientError(name, name === 'UNKNOWN_SERVER_ERROR' && code !== -1 ? `${detail} (error code ${code})` : detail)
}
