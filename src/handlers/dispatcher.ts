// Turns request frames into responses: reads the header, finds the handler, checks the version,
// decodes the body, runs the handler and encodes header + body as chunks for the network layer.
//
// Bad input (KAFKA-NOTES "How Kafka answers bad input"): an unknown API key, a version outside the
// served range, or a body that does not parse closes the connection — except ApiVersions, which
// answers an unknown version in v0 form with UNSUPPORTED_VERSION and our ranges (KIP-511).
import { CloseConnection, type ConnectionInfo, type Dispatcher, type ResponseChunks } from '../network/types.js'
import { ErrorCode } from '../protocol/errors.js'
import { API_VERSIONS_KEY, decodeRequestHeader, encodeResponseHeader, responseHeaderVersion } from '../protocol/header.js'
import { ApiVersionsResponse } from '../protocol/messages/18-api-versions.js'
import { DecodeError, Reader } from '../protocol/primitives/reader.js'
import { Writer } from '../protocol/primitives/writer.js'
import type { RequestContext } from './define.js'
import type { HandlerRegistry } from './registry.js'
import type { BrokerServices } from './services.js'

export class RequestDispatcher implements Dispatcher {
  constructor(
    private readonly registry: HandlerRegistry,
    private readonly broker: BrokerServices,
  ) {}

  dispatch(frame: Buffer, conn: ConnectionInfo): Promise<ResponseChunks> | ResponseChunks {
    let header: ReturnType<typeof decodeRequestHeader>
    try {
      header = decodeRequestHeader(frame, (k, v) => this.registry.isFlexible(k, v))
    } catch (err) {
      throw new CloseConnection(`malformed request header: ${(err as Error).message}`)
    }
    const handler = this.registry.get(header.apiKey)
    const version = header.apiVersion
    if (!handler || version < handler.minVersion || version > handler.maxVersion) {
      if (header.apiKey === API_VERSIONS_KEY) return this.unsupportedApiVersions(header.correlationId)
      throw new CloseConnection(
        handler
          ? `${handler.request.name} v${version} is not supported (${handler.minVersion}-${handler.maxVersion})`
          : `unknown API key ${header.apiKey}`,
      )
    }
    let req: unknown
    try {
      const r = new Reader(frame, header.bodyOffset)
      req = handler.request.codec(version).decode(r)
      if (r.remaining !== 0) throw new DecodeError(`${r.remaining} trailing bytes`)
    } catch (err) {
      throw new CloseConnection(`malformed ${handler.request.name} v${version} request: ${(err as Error).message}`)
    }
    let after: Array<() => void> | undefined
    const ctx: RequestContext = {
      header,
      apiVersion: version,
      conn,
      broker: this.broker,
      apis: this.registry.advertised,
      afterResponse: (fn) => (after ??= []).push(fn),
    }
    const runAfter = () => {
      for (const fn of after ?? []) fn()
    }
    const respond = (res: unknown): ResponseChunks => {
      if (res === null) {
        runAfter()
        return null
      }
      const w = new Writer(512)
      const flexible = handler.response.isFlexible(version)
      encodeResponseHeader(w, header.correlationId, responseHeaderVersion(header.apiKey, flexible))
      handler.response.codec(version).encode(w, res as never)
      const chunks: NonNullable<ResponseChunks> = w.toChunks()
      if (after) chunks.onWritten = runAfter
      return chunks
    }
    const out = handler.handle(ctx, req)
    return out instanceof Promise ? out.then(respond) : respond(out)
  }

  /** KIP-511: an ApiVersions version we do not know is answered in v0 form, so the client can retry lower. */
  private unsupportedApiVersions(correlationId: number): ResponseChunks {
    const w = new Writer(512)
    encodeResponseHeader(w, correlationId, 0)
    ApiVersionsResponse.codec(0).encode(w, {
      errorCode: ErrorCode.UNSUPPORTED_VERSION.code,
      apiKeys: this.registry.advertised.filter((a) => a.apiKey === API_VERSIONS_KEY),
    })
    return w.toChunks()
  }
}
