// The broker's version range per API key, as negotiated on one connection (api-versions.ts sends
// the ApiVersions request; connection.ts keeps the table it yields), and the feature levels the
// broker reported finalized (ApiVersions v3+, KIP-584) — `transaction.version` decides which
// transaction protocol a producer speaks (KIP-890).
import type { Message } from '../protocol/schema.js'
import { ClientError } from './errors.js'

export interface VersionRange {
  min: number
  max: number
}

export class ApiVersionTable {
  constructor(
    readonly broker: ReadonlyMap<number, VersionRange>,
    /** Finalized feature name → its max version level (empty before ApiVersions v3). */
    readonly finalizedFeatures: ReadonlyMap<string, number> = new Map(),
  ) {}

  /** The finalized level of a feature, 0 when the broker reported none. */
  featureLevel(name: string): number {
    return this.finalizedFeatures.get(name) ?? 0
  }

  /** The broker's range for an API key, or undefined when it does not serve the API. */
  brokerRange(apiKey: number): VersionRange | undefined {
    return this.broker.get(apiKey)
  }

  /**
   * The highest version of an API that our request and response declarations and the broker all
   * support, optionally capped at maxVersion; UNSUPPORTED_VERSION when there is none.
   */
  pick(req: Message<any>, res: Message<any>, maxVersion = Number.MAX_SAFE_INTEGER): number {
    const theirs = this.broker.get(req.apiKey)
    if (!theirs) throw new ClientError('UNSUPPORTED_VERSION', `the broker does not serve ${req.name} (api key ${req.apiKey})`)
    const min = Math.max(req.versions.min, res.versions.min, theirs.min)
    const max = Math.min(req.versions.max, res.versions.max, theirs.max, maxVersion)
    if (max < min) {
      throw new ClientError(
        'UNSUPPORTED_VERSION',
        `${req.name}: the broker serves v${theirs.min}-${theirs.max}, this client v${req.versions.min}-${req.versions.max}` +
          (maxVersion !== Number.MAX_SAFE_INTEGER ? ` (capped at v${maxVersion})` : ''),
      )
    }
    return max
  }
}
