// The REST API's errors (rest/), in Confluent REST Proxy v3's bodies and statuses:
// {"error_code": N, "message": "..."} where N is either the HTTP status or REST Proxy's finer
// code (40002 a request Kafka refused, 40403 an unknown topic or partition, 50002 / 50003 a
// Kafka error, retriable or not, 50302 a broker unavailable). Where the failure is Kafka's, the
// body also names it: "kafka_error": "TOPIC_ALREADY_EXISTS".
//
// Rules: classify by the Kafka error code (ClientError.code), never by message text. Bad input
// is always a 4xx — where REST Proxy would answer 500 for a client's mistake (an invalid topic
// name), this answers 400 / 40002 instead.
import { ClientError } from '../../client/errors.js'
import type { ErrorName } from '../../protocol/errors.js'

/** REST Proxy's fixed error codes (the ones its clients switch on). */
export const RestCode = {
  BadRequest: 400,
  KafkaBadRequest: 40002,
  KafkaAuthentication: 40101,
  KafkaAuthorization: 40301,
  NotFound: 404,
  UnknownTopicOrPartition: 40403,
  TooLarge: 413,
  Unprocessable: 422,
  KafkaError: 50002,
  KafkaRetriable: 50003,
  BrokerNotAvailable: 50302,
} as const

export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
    readonly kafkaError: ErrorName | null = null,
  ) {
    super(message)
    this.name = 'RestError'
  }

  toJSON(): { error_code: number; message: string; kafka_error?: ErrorName } {
    return { error_code: this.errorCode, message: this.message, ...(this.kafkaError ? { kafka_error: this.kafkaError } : {}) }
  }
}

export const badRequest = (message: string): RestError => new RestError(400, RestCode.BadRequest, message)
export const notFound = (message: string): RestError => new RestError(404, RestCode.NotFound, message)

/** Kafka's own messages for the errors whose REST Proxy answer quotes them. */
const KAFKA_MESSAGES: Partial<Record<ErrorName, string>> = {
  UNKNOWN_TOPIC_OR_PARTITION: 'This server does not host this topic-partition.',
  MESSAGE_TOO_LARGE: 'The request included a message larger than the maximum message size the server can accept.',
}

/** The errors REST Proxy answers 400 / 40002 for (its KafkaExceptionMapper), and those a client causes. */
const KAFKA_BAD_REQUEST: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'INVALID_REPLICATION_FACTOR',
  'SECURITY_DISABLED',
  'UNSUPPORTED_VERSION',
  'INVALID_PARTITIONS',
  'INVALID_REQUEST',
  'UNKNOWN_SERVER_ERROR',
  'POLICY_VIOLATION',
  'TOPIC_ALREADY_EXISTS',
  'INVALID_CONFIG',
  'INVALID_TOPIC_EXCEPTION',
  'INVALID_REPLICA_ASSIGNMENT',
  'TOPIC_DELETION_DISABLED',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
])

/** A Kafka error (its name and message) as REST Proxy answers it. */
export function fromKafka(code: ErrorName, message: string | null, retriable = false): RestError {
  const text = KAFKA_MESSAGES[code] ?? message ?? code
  if (code === 'UNKNOWN_TOPIC_OR_PARTITION') return new RestError(404, RestCode.UnknownTopicOrPartition, text, code)
  if (code === 'MESSAGE_TOO_LARGE' || code === 'RECORD_LIST_TOO_LARGE') return new RestError(413, RestCode.TooLarge, text, code)
  if (code === 'BROKER_NOT_AVAILABLE') return new RestError(503, RestCode.BrokerNotAvailable, text, code)
  if (code === 'SASL_AUTHENTICATION_FAILED') return new RestError(401, RestCode.KafkaAuthentication, text, code)
  if (code.endsWith('_AUTHORIZATION_FAILED')) return new RestError(403, RestCode.KafkaAuthorization, text, code)
  if (KAFKA_BAD_REQUEST.has(code)) return new RestError(400, RestCode.KafkaBadRequest, text, code)
  return new RestError(500, retriable ? RestCode.KafkaRetriable : RestCode.KafkaError, text, code)
}

/** Any failure of a route as a RestError: its own, a Kafka client's, Fastify's (bad JSON, body too large). */
export function toRestError(err: unknown): RestError {
  if (err instanceof RestError) return err
  if (err instanceof ClientError) return fromKafka(err.code, err.detail, err.retriable)
  const status = (err as { statusCode?: number }).statusCode
  const message = err instanceof Error ? err.message : String(err)
  if (status !== undefined && status >= 400 && status < 500) return new RestError(status, status, message)
  return new RestError(500, 500, message)
}
