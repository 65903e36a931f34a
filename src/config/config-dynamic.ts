// Changing configs at run time: the rules AlterConfigs (key 33) and IncrementalAlterConfigs (key 44)
// share, for topic overrides and dynamic broker configs (KIP-226), as pure functions over config
// sets (name → text). Persisting and applying the result is the caller's (config-service.ts for
// brokers, the controller for topics).
//
// - IncrementalAlterConfigs (KIP-339) edits the current set key by key: SET, DELETE (back to the
//   default), APPEND / SUBTRACT (list-typed keys only; the current value, else the key's default, is
//   the list edited — Kafka's prepareIncrementalConfigs / ConfigurationControlManager). AlterConfigs
//   sends the whole new set: keys left out go back to their defaults.
// - Broker keys: an unknown name is INVALID_CONFIG naming the key; a bad value is INVALID_REQUEST
//   naming the key, as Kafka's ConfigAdminManager answers for BROKER resources (per broker and for
//   the cluster-wide default alike); a known key that cannot change at run time is INVALID_REQUEST
//   "Cannot update these configs dynamically", as Kafka's DynamicBrokerConfig.validateConfigs
//   answers (config-values.ts: DYNAMIC_BROKER_CONFIGS). Listener-prefixed keys
//   (listener.name.<l>.max.connections) are parsed as their base key.
// - Resource names (Kafka's ConfigAdminManager): a BROKER resource is "" (the cluster-wide default)
//   or this broker's node id; anything else is INVALID_REQUEST.
import { KafkaError } from '../protocol/errors.js'
import type { ConfigKeyDef } from './config-defs.js'
import { ConfigError, isDynamicBrokerConfig, parseConfigValue, topicConfigDef } from './config-values.js'
import { groupConfigDef } from './group-config.js'
import { brokerKeyDef } from './listener-scoped.js'

/** IncrementalAlterConfigs configOperation values (KIP-339). */
export const AlterConfigOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const

export interface IncrementalOp {
  name: string
  /** See AlterConfigOp. */
  op: number
  /** null only for DELETE. */
  value: string | null
}

export type ConfigKind = 'topic' | 'broker' | 'group'

function defOf(kind: ConfigKind, name: string): ConfigKeyDef {
  const def = kind === 'topic' ? topicConfigDef(name) : kind === 'group' ? groupConfigDef(name) : brokerKeyDef(name)
  if (!def) throw new ConfigError(`Unknown ${kind} config name: ${name}`, name)
  return def
}

const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

/**
 * The set after applying IncrementalAlterConfigs operations, in order, to `current`. Throws
 * INVALID_REQUEST for an unknown operation, INVALID_CONFIG for an unknown name or APPEND / SUBTRACT
 * on a key that is not a list. Values are not validated here (validate the result as a whole).
 */
export function applyIncrementalOps(
  current: Readonly<Record<string, string>>,
  ops: readonly IncrementalOp[],
  kind: ConfigKind,
): Record<string, string> {
  const next: Record<string, string> = { ...current }
  for (const o of ops) {
    switch (o.op) {
      case AlterConfigOp.SET:
        defOf(kind, o.name)
        next[o.name] = o.value ?? ''
        break
      case AlterConfigOp.DELETE:
        defOf(kind, o.name)
        delete next[o.name]
        break
      case AlterConfigOp.APPEND:
      case AlterConfigOp.SUBTRACT: {
        const def = defOf(kind, o.name)
        const verb = o.op === AlterConfigOp.APPEND ? 'APPEND to' : 'SUBTRACT from'
        if (def.type !== 'list') {
          throw new ConfigError(`Can't ${verb} key ${o.name} because its type is not LIST.`, o.name, o.value ?? '')
        }
        const old = splitList(next[o.name] ?? def.default ?? '')
        const given = splitList(o.value ?? '')
        const list =
          o.op === AlterConfigOp.APPEND ? [...old, ...given.filter((v) => !old.includes(v))] : old.filter((v) => !given.includes(v))
        next[o.name] = list.join(',')
        break
      }
      default:
        throw new KafkaError('INVALID_REQUEST', `Unknown operations type ${o.op}`)
    }
  }
  return next
}

/**
 * Validates a whole dynamic broker config set and returns its canonical texts. Unknown name →
 * INVALID_CONFIG naming the key; a bad value or a key that cannot change at run time → INVALID_REQUEST.
 */
export function validateDynamicBrokerConfigs(configs: Readonly<Record<string, string>>): Record<string, string> {
  const fixed: string[] = []
  for (const name of Object.keys(configs)) {
    defOf('broker', name)
    if (!isDynamicBrokerConfig(name)) fixed.push(name)
  }
  if (fixed.length > 0) {
    throw new KafkaError(
      'INVALID_REQUEST',
      `Cannot update these configs dynamically: ${fixed.join(', ')} (set them in server.properties or with --override and restart the broker)`,
    )
  }
  const out: Record<string, string> = {}
  for (const [name, raw] of Object.entries(configs)) {
    try {
      out[name] = parseConfigValue(defOf('broker', name), raw).text
    } catch (err) {
      if (err instanceof ConfigError) throw new KafkaError('INVALID_REQUEST', err.message)
      throw err
    }
  }
  return out
}

/** Checks a BROKER resource name: "" (cluster-wide default) or this node's id; INVALID_REQUEST otherwise. */
export function checkBrokerResourceName(resourceName: string, nodeId: number): void {
  if (resourceName === '') return
  if (!/^-?\d+$/.test(resourceName)) {
    throw new KafkaError('INVALID_REQUEST', `Node id must be an integer, but it is: ${resourceName}`)
  }
  if (Number(resourceName) !== nodeId) {
    throw new KafkaError('INVALID_REQUEST', `Unexpected broker id, expected ${nodeId}, but received ${resourceName}`)
  }
}
