// Request and response headers.
//
// Request header v0: api_key int16, api_version int16, correlation_id int32; v1 adds client_id, a
// nullable *non-compact* string even in v2; v2 (used by flexible request versions) adds a tagged
// field section. Response header v0: correlation_id; v1 (flexible responses) adds tagged fields —
// except ApiVersions, whose response always uses header v0 so that a client can parse it before it
// knows which versions the broker speaks (KIP-511).
import { Reader } from './primitives/reader.js'
import type { Writer } from './primitives/writer.js'

export interface RequestHeader {
  apiKey: number
  apiVersion: number
  correlationId: number
  clientId: string | null
  /** Byte offset in the frame where the request body starts. */
  bodyOffset: number
}

export const API_VERSIONS_KEY = 18

/**
 * Reads the header of a request frame. `isFlexible(apiKey, version)` tells whether the body is
 * flexible (header v2) or not (header v1); it returns undefined for an unknown key/version, in
 * which case only the fixed part is read (enough to answer ApiVersions or close).
 */
export function decodeRequestHeader(frame: Buffer, isFlexible: (apiKey: number, version: number) => boolean | undefined): RequestHeader {
  const r = new Reader(frame)
  const apiKey = r.int16()
  const apiVersion = r.int16()
  const correlationId = r.int32()
  // As Kafka's RequestHeaderData: any negative length is a null client id.
  const n = r.int16()
  const clientId = n >= 0 ? r.utf8(n) : null
  const flexible = isFlexible(apiKey, apiVersion)
  if (flexible) {
    const tags = r.uvarint()
    for (let i = 0; i < tags; i++) {
      r.uvarint()
      r.skip(r.uvarint())
    }
  }
  return { apiKey, apiVersion, correlationId, clientId, bodyOffset: r.pos }
}

export function encodeRequestHeader(
  w: Writer,
  h: { apiKey: number; apiVersion: number; correlationId: number; clientId: string | null },
  flexible: boolean,
): void {
  w.int16(h.apiKey).int16(h.apiVersion).int32(h.correlationId)
  if (h.clientId === null) w.int16(-1)
  else {
    const n = Buffer.byteLength(h.clientId)
    w.int16(n).utf8(h.clientId, n)
  }
  if (flexible) w.uvarint(0)
}

export function responseHeaderVersion(apiKey: number, flexible: boolean): 0 | 1 {
  return flexible && apiKey !== API_VERSIONS_KEY ? 1 : 0
}

export function encodeResponseHeader(w: Writer, correlationId: number, headerVersion: 0 | 1): void {
  w.int32(correlationId)
  if (headerVersion === 1) w.uvarint(0)
}

export function decodeResponseHeader(r: Reader, headerVersion: 0 | 1): number {
  const correlationId = r.int32()
  if (headerVersion === 1) {
    const tags = r.uvarint()
    for (let i = 0; i < tags; i++) {
      r.uvarint()
      r.skip(r.uvarint())
    }
  }
  return correlationId
}
