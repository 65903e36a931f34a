// Checks of the REST API's request bodies and path parameters (rest/): each either returns the
// value in the type the route needs or throws a 400 that names the field, as REST Proxy rejects
// a body that does not deserialize.
import { badRequest, fromKafka } from './errors.js'

export type Body = Record<string, unknown>

export function object(v: unknown, what = 'request body'): Body {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`${what} must be a JSON object`)
  return v as Body
}

export function requiredString(o: Body, key: string): string {
  const v = o[key]
  if (typeof v !== 'string' || v === '') throw badRequest(`${key} is required and must be a non-empty string`)
  return v
}

export function optionalString(o: Body, key: string): string | null {
  const v = o[key]
  if (v === undefined || v === null) return null
  if (typeof v !== 'string') throw badRequest(`${key} must be a string or null`)
  return v
}

export function optionalInt(o: Body, key: string): number | null {
  const v = o[key]
  if (v === undefined || v === null) return null
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw badRequest(`${key} must be an integer`)
  return v
}

export function optionalBool(o: Body, key: string): boolean {
  const v = o[key]
  if (v === undefined || v === null) return false
  if (typeof v !== 'boolean') throw badRequest(`${key} must be true or false`)
  return v
}

export function optionalArray(o: Body, key: string): unknown[] {
  const v = o[key]
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw badRequest(`${key} must be an array`)
  return v
}

/** A partition id from a path: 404 40403 when it is not a non-negative integer, as for a missing one. */
export function partitionParam(s: string): number {
  if (!/^\d{1,9}$/.test(s)) throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
  return Number(s)
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Strict base64 (with padding, no whitespace): what REST Proxy accepts for BINARY data and header values. */
export function base64(v: unknown, what: string): Buffer {
  if (typeof v !== 'string' || !BASE64.test(v)) {
    const shown = typeof v === 'string' ? (v.length > 40 ? `${v.slice(0, 40)}…` : v) : JSON.stringify(v)
    throw badRequest(`Bad Request: ${what}=${shown} is not a base64 string.`)
  }
  return Buffer.from(v, 'base64')
}
