// The broker keys of client quotas (Kafka's QuotaConfig): the sampled windows over which byte
// rates, request time and connection creation are measured (quota.window.*), and the token
// bucket of controller mutations (controller.quota.window.*, KIP-599). Read once at start, as
// Kafka does. config-defs.ts assembles the tables; the quotas themselves are client quota
// entities (AlterClientQuotas), not broker keys.
import type { ConfigKeyDef } from './config-key.js'

export const QUOTA_KEYS = [
  {
    name: 'quota.window.num',
    type: 'int',
    default: '11',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Number of samples kept in memory for client quotas.',
  },
  {
    name: 'quota.window.size.seconds',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Time span of each sample for client quotas.',
  },
  {
    name: 'controller.quota.window.num',
    type: 'int',
    default: '11',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Number of samples of the controller mutation quota (its burst is num × size × rate).',
  },
  {
    name: 'controller.quota.window.size.seconds',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Time span of each sample of the controller mutation quota.',
  },
] as const satisfies readonly ConfigKeyDef[]
