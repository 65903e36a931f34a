// The console's calls: REST v3 (Confluent REST Proxy's shapes) for the cluster, topics, configs,
// groups and produce; /console/api for what v3 has no resource for; the SSE endpoint for the tail.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { ...init, headers: { accept: 'application/json', 'content-type': 'application/json', ...init?.headers } })
  const text = await res.text()
  const body = text === '' ? null : JSON.parse(text)
  if (!res.ok) throw new HttpError(res.status, body?.message ?? `HTTP ${res.status}`)
  return body as T
}

/** A record as the push streams and the message browser send it (src/http/push/cursor.ts). */
export interface BrowsedRecord {
  topic: string
  partition: number
  offset: number
  /** ms since the epoch */
  timestamp: number
  /** How key, value and header values are written: all as text (UTF-8), or all as base64. */
  encoding: 'text' | 'base64'
  key: string | null
  value: string | null
  headers: Array<{ key: string; value: string | null }>
}

export interface Browse {
  partitions: Array<{ partition: number; earliest: number; latest: number }>
  scanned: number
  complete: boolean
  records: BrowsedRecord[]
}

export interface TopicDescription {
  name: string
  internal: boolean
  replicationFactor: number
  sizeBytes: number | null
  partitions: Array<{
    partition: number
    leader: number
    replicas: number[]
    isr: number[]
    earliestOffset: number | null
    latestOffset: number | null
    sizeBytes: number | null
  }>
  configs: Array<{ name: string; value: string | null; source: string }>
}

/** A share group as /console/api/share-groups/{group} describes it (src/http/console/share-routes.ts). */
export interface ShareGroup {
  group_id: string
  state: string
  members: Array<{ member_id: string; client_id: string; host: string; partitions: string[] }>
  offsets: Array<{ topic: string; partition: number; start_offset: number; lag: number; error: string | null }>
  total_lag: number
}

/** An ACL binding with Kafka's names (src/http/console/security-routes.ts). */
export interface Acl {
  principal: string
  host: string
  operation: string
  permission: string
  resource_type: string
  resource_name: string
  pattern_type: string
}

export interface Security {
  users: Array<{ user: string; credentials: Array<{ mechanism: string; iterations: number }> }>
  /** null: the broker has no authorizer. */
  acls: Acl[] | null
}

interface List<T> {
  data: T[]
}

let clusterId: Promise<string> | undefined
export function cluster(): Promise<string> {
  clusterId ??= call<List<{ cluster_id: string }>>('/v3/clusters').then((l) => l.data[0]!.cluster_id)
  return clusterId
}

const v3 = async (path: string) => `/v3/clusters/${encodeURIComponent(await cluster())}${path}`

export const api = {
  brokers: async () => (await call<List<{ broker_id: number; host: string; port: number; rack: string | null }>>(await v3('/brokers'))).data,
  topics: async () =>
    (await call<List<{ topic_name: string; is_internal: boolean; partitions_count: number; replication_factor: number }>>(await v3('/topics')))
      .data,
  topic: (name: string) => call<TopicDescription>(`/console/api/topics/${encodeURIComponent(name)}`),
  browse: (name: string, q: Record<string, string>) =>
    call<Browse>(`/console/api/topics/${encodeURIComponent(name)}/messages?${new URLSearchParams(Object.entries(q).filter(([, v]) => v !== ''))}`),
  produce: async (name: string, key: string, value: string, partition: string) =>
    call<{ partition_id: number; offset: number }>(await v3(`/topics/${encodeURIComponent(name)}/records`), {
      method: 'POST',
      body: JSON.stringify({
        ...(partition === '' ? {} : { partition_id: Number(partition) }),
        ...(key === '' ? {} : { key: { type: 'STRING', data: key } }),
        value: { type: 'STRING', data: value },
      }),
    }),
  groups: async () =>
    (await call<List<{ consumer_group_id: string; state: string; is_simple: boolean; partition_assignor: string }>>(await v3('/consumer-groups')))
      .data,
  lags: async (group: string) =>
    (
      await call<
        List<{ topic_name: string; partition_id: number; current_offset: number; log_end_offset: number; lag: number; consumer_id: string }>
      >(await v3(`/consumer-groups/${encodeURIComponent(group)}/lags`))
    ).data,
  shareGroups: () => call<Array<{ group_id: string; state: string; members: number }>>('/console/api/share-groups'),
  shareGroup: (group: string) => call<ShareGroup>(`/console/api/share-groups/${encodeURIComponent(group)}`),
  shareReset: (group: string, topic: string, to: string) =>
    call<{ offsets: Array<{ partition: number; offset: number }> }>(`/console/api/share-groups/${encodeURIComponent(group)}/reset`, {
      method: 'POST',
      body: JSON.stringify({ topic, to: /^\d+$/.test(to) ? Number(to) : to }),
    }),
  security: () => call<Security>('/console/api/security'),
  createAcl: (acl: Acl) => call<{ created: Acl }>('/console/api/acls', { method: 'POST', body: JSON.stringify(acl) }),
  deleteAcl: (acl: Acl) => call<{ deleted: Acl[] }>('/console/api/acls/delete', { method: 'POST', body: JSON.stringify(acl) }),
  reset: (group: string, topic: string, to: string) =>
    call<{ offsets: Array<{ partition: number; offset: number }> }>(`/console/api/groups/${encodeURIComponent(group)}/reset`, {
      method: 'POST',
      body: JSON.stringify({ topic, to: /^\d+$/.test(to) ? Number(to) : to }),
    }),
}
