// The handlers that exist, by API key. ApiVersions is derived from this table, so an API is
// advertised exactly when a handler for it is registered.
import type { AdvertisedApi, Handler } from './define.js'

export type { AdvertisedApi } from './define.js'

export class HandlerRegistry {
  private readonly byKey = new Map<number, Handler>()
  readonly advertised: readonly AdvertisedApi[]

  constructor(handlers: Handler[]) {
    for (const h of handlers) {
      if (this.byKey.has(h.request.apiKey)) throw new Error(`two handlers for API key ${h.request.apiKey}`)
      this.byKey.set(h.request.apiKey, h)
    }
    this.advertised = [...this.byKey.values()]
      .map((h) => ({ apiKey: h.request.apiKey, minVersion: h.advertisedMinVersion, maxVersion: h.maxVersion }))
      .sort((a, b) => a.apiKey - b.apiKey)
  }

  get(apiKey: number): Handler | undefined {
    return this.byKey.get(apiKey)
  }

  /** Whether the request at this version uses the flexible encoding; undefined if not served. */
  isFlexible(apiKey: number, version: number): boolean | undefined {
    const h = this.byKey.get(apiKey)
    if (!h || version < h.minVersion || version > h.maxVersion) return undefined
    return h.request.isFlexible(version)
  }
}
