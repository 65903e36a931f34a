// The configuration keys Tributary knows, with Kafka's names, types and defaults (docs/architecture.md §1.7),
// declared as data. config.ts parses, validates and resolves them; DescribeConfigs reads them back.
//
// Defaults are written as Kafka documents them (strings), parsed once at module load by config.ts,
// so the table itself is checked. Where our default differs from Kafka's, the doc says so:
//   listeners                         PLAINTEXT://127.0.0.1:9092 (Kafka: PLAINTEXT://:9092, all interfaces)
//   log.dir                           ./tributary-data            (Kafka: /tmp/kafka-logs)
//   node.id, broker.id                0                           (Kafka: -1, must be set in KRaft mode)
//   offsets.topic.replication.factor  1                           (Kafka: 3)
//   transaction.state.log.replication.factor 1, transaction.state.log.min.isr 1 (Kafka: 3 and 2)
// so that `tributary start` with no configuration is a complete single-node broker. A cluster sets
// these to 3 / 2 like Kafka.
//
// Longs: Kafka's Long.MAX_VALUE (9223372036854775807) means "never" (flush.messages, flush.ms,
// max.compaction.lag.ms, timestamp bounds). Values are JS numbers (docs/architecture.md §1.4): any long beyond
// ±Number.MAX_SAFE_INTEGER is clamped to it, which is still "never" (2^53 ms ≈ 285,000 years), and is
// described back as 9223372036854775807.
//
// `ignored` keys are accepted (type-checked, described) so that a Kafka server.properties can be
// reused without warnings, but have no effect: Node runs one event loop, and there is no KRaft
// quorum or ZooKeeper (cluster metadata lives in the local store or etcd, docs/architecture.md §1.5).

export type ConfigType = 'int' | 'long' | 'double' | 'boolean' | 'string' | 'list' | 'password' | 'class'

export interface ConfigValidator {
  /** Inclusive numeric bounds (int, long, double). */
  readonly min?: number
  readonly max?: number
  /** Allowed values (string); for lists, allowed elements. Compared case-sensitively, like Kafka. */
  readonly oneOf?: readonly string[]
  /** Extra check on the parsed value: returns what was expected when the value is refused. */
  readonly check?: (value: any) => string | undefined
}

export interface TopicSynonym {
  /** Broker config name. */
  readonly name: string
  /** Multiplier turning the broker value into the topic unit (hours → ms = 3_600_000). */
  readonly factor?: number
}

export interface ConfigKeyDef {
  readonly name: string
  readonly type: ConfigType
  /** Kafka-style text of the default, or null when the key has no default (unset). */
  readonly default: string | null
  readonly validator?: ConfigValidator
  readonly doc: string
  readonly scope: 'broker' | 'topic'
  /** Topic configs: the broker configs supplying the default, highest priority first (Kafka's order). */
  readonly brokerSynonyms?: readonly TopicSynonym[]
  /** Value is never shown (DescribeConfigs answers null). Passwords are always sensitive. */
  readonly sensitive?: boolean
  /** Accepted for Kafka compatibility; has no effect in Tributary. */
  readonly ignored?: boolean
}

const LONG_MAX = '9223372036854775807'
const INT_MAX = '2147483647'
const HOUR_MS = 3_600_000
const MINUTE_MS = 60_000

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const
export const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const
export const CLEANUP_POLICIES = ['compact', 'delete'] as const

// Compression levels (KIP-390): gzip 1..9 or -1 (zlib's default), lz4 1..17, zstd -131072..22.
const gzipLevel = (v: number) => (v === -1 || (v >= 1 && v <= 9) ? undefined : '-1 or a level from 1 to 9')

// etcd.endpoints: URLs as the etcd client takes them; etcd.prefix: an absolute key path.
const etcdEndpoints = (v: readonly string[]) =>
  v.every((e) => /^https?:\/\/[^\s/]+\/?$/.test(e)) ? undefined : 'a comma-separated list of http://host:port URLs'
const etcdPrefix = (v: string) => (/^\/\S*$/.test(v) ? undefined : 'a key path starting with / and without spaces')

// ---------------------------------------------------------------------------------------------
// Broker configs
// ---------------------------------------------------------------------------------------------

export const BROKER_CONFIG_DEFS = [
  // Identity and cluster membership
  {
    name: 'node.id',
    type: 'int',
    default: '0',
    validator: { min: 0 },
    scope: 'broker',
    doc: "This broker's id in the cluster (Kafka defaults to -1 and requires it; we default to 0). broker.id is a synonym; if both are set they must agree.",
  },
  { name: 'broker.id', type: 'int', default: '0', validator: { min: 0 }, scope: 'broker', doc: 'Older name of node.id.' },
  {
    name: 'cluster.id',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'Expected cluster id. When set, the id stored in meta.properties must match it (a new data dir is formatted with it). Unset: a new data dir gets a random id.',
  },
  {
    name: 'broker.rack',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'Rack of this broker, given to clients in Metadata and DescribeCluster.',
  },
  {
    name: 'etcd.endpoints',
    type: 'list',
    default: null,
    validator: { check: etcdEndpoints },
    scope: 'broker',
    doc: 'Comma-separated etcd client URLs (http://host:2379). Set: the cluster metadata lives in etcd and the broker registers there and takes part in the controller election. Unset: single node, metadata in the data dir.',
  },
  {
    name: 'etcd.prefix',
    type: 'string',
    default: '/tributary',
    validator: { check: etcdPrefix },
    scope: 'broker',
    doc: 'Key prefix of this cluster in etcd, so several clusters can share one etcd.',
  },
  {
    name: 'broker.session.timeout.ms',
    type: 'int',
    default: '9000',
    validator: { min: 1000 },
    scope: 'broker',
    doc: 'How long a broker stays registered after its last heartbeat to etcd (its lease TTL, rounded up to whole seconds, at least 2 s); a dead controller is replaced within this time. With etcd only.',
  },
  {
    name: 'process.roles',
    type: 'list',
    default: '',
    validator: { oneOf: ['broker', 'controller'] },
    scope: 'broker',
    ignored: true,
    doc: 'KRaft roles. Ignored: every Tributary node is a broker; metadata lives in the metadata store.',
  },
  {
    name: 'controller.quorum.voters',
    type: 'list',
    default: '',
    scope: 'broker',
    ignored: true,
    doc: 'KRaft quorum. Ignored (no KRaft quorum).',
  },
  {
    name: 'controller.quorum.bootstrap.servers',
    type: 'list',
    default: '',
    scope: 'broker',
    ignored: true,
    doc: 'KRaft quorum bootstrap. Ignored (no KRaft quorum).',
  },
  {
    name: 'controller.listener.names',
    type: 'list',
    default: null,
    scope: 'broker',
    doc: 'Names of KRaft controller listeners. Tributary does not bind listeners named here, so a combined-mode Kafka server.properties works unchanged.',
  },
  {
    name: 'zookeeper.connect',
    type: 'string',
    default: null,
    scope: 'broker',
    ignored: true,
    doc: 'ZooKeeper connection string. Ignored (no ZooKeeper).',
  },
  { name: 'zookeeper.connection.timeout.ms', type: 'int', default: null, scope: 'broker', ignored: true, doc: 'Ignored (no ZooKeeper).' },

  // Network
  {
    name: 'listeners',
    type: 'list',
    default: 'PLAINTEXT://127.0.0.1:9092',
    scope: 'broker',
    doc: 'Comma-separated NAME://host:port addresses to listen on. Empty host or 0.0.0.0 binds all IPv4 interfaces, [::] all interfaces; port 0 picks a free port. Kafka defaults to PLAINTEXT://:9092 (all interfaces); we default to loopback.',
  },
  {
    name: 'advertised.listeners',
    type: 'list',
    default: null,
    scope: 'broker',
    doc: 'Addresses given to clients in Metadata responses, if different from listeners. Unset: the listeners, with an empty or wildcard host (0.0.0.0, ::) replaced by 127.0.0.1 — set it whenever clients connect from other machines.',
  },
  {
    name: 'listener.security.protocol.map',
    type: 'list',
    default: 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    scope: 'broker',
    doc: 'Maps listener names to security protocols, as NAME:PROTOCOL pairs.',
  },
  {
    name: 'inter.broker.listener.name',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'Listener that brokers use to reach each other (replication). Unset: the listener using security.inter.broker.protocol.',
  },
  {
    name: 'security.inter.broker.protocol',
    type: 'string',
    default: 'PLAINTEXT',
    validator: { oneOf: SECURITY_PROTOCOLS },
    scope: 'broker',
    doc: 'Security protocol between brokers, when inter.broker.listener.name is unset.',
  },
  {
    name: 'socket.request.max.bytes',
    type: 'int',
    default: '104857600',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Largest request frame accepted; a bigger size prefix closes the connection.',
  },
  {
    name: 'socket.send.buffer.bytes',
    type: 'int',
    default: '102400',
    scope: 'broker',
    doc: 'SO_SNDBUF for client sockets; -1 keeps the OS default.',
  },
  {
    name: 'socket.receive.buffer.bytes',
    type: 'int',
    default: '102400',
    scope: 'broker',
    doc: 'SO_RCVBUF for client sockets; -1 keeps the OS default.',
  },
  {
    name: 'socket.listen.backlog.size',
    type: 'int',
    default: '50',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Listen backlog of the server sockets.',
  },
  {
    name: 'connections.max.idle.ms',
    type: 'long',
    default: '600000',
    scope: 'broker',
    doc: 'Idle connections are closed after this many milliseconds.',
  },
  {
    name: 'queued.max.requests',
    type: 'int',
    default: '500',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Requests read but not yet answered, per broker, before reading from sockets pauses.',
  },
  {
    name: 'max.connections',
    type: 'int',
    default: INT_MAX,
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Most client connections the broker accepts at once.',
  },
  {
    name: 'max.connections.per.ip',
    type: 'int',
    default: INT_MAX,
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Most connections accepted from one IP address.',
  },
  {
    name: 'num.network.threads',
    type: 'int',
    default: '3',
    validator: { min: 1 },
    scope: 'broker',
    ignored: true,
    doc: 'Ignored: Node serves sockets from one event loop.',
  },
  {
    name: 'num.io.threads',
    type: 'int',
    default: '8',
    validator: { min: 1 },
    scope: 'broker',
    ignored: true,
    doc: "Ignored: requests run on the event loop; disk I/O uses libuv's pool.",
  },

  // Topics and logs
  { name: 'log.dirs', type: 'list', default: null, scope: 'broker', doc: 'Comma-separated data directories. Unset: log.dir.' },
  {
    name: 'log.dir',
    type: 'string',
    default: './tributary-data',
    scope: 'broker',
    doc: 'Data directory when log.dirs is unset (Kafka: /tmp/kafka-logs).',
  },
  {
    name: 'num.partitions',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Partitions of auto-created topics and of CreateTopics requests that leave the count to the broker.',
  },
  {
    name: 'default.replication.factor',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Replication factor of auto-created topics and of CreateTopics requests that leave it to the broker.',
  },
  {
    name: 'auto.create.topics.enable',
    type: 'boolean',
    default: 'true',
    scope: 'broker',
    doc: 'Create a topic when a client asks for metadata of a topic that does not exist.',
  },
  { name: 'delete.topic.enable', type: 'boolean', default: 'true', scope: 'broker', doc: 'Allow DeleteTopics.' },
  {
    name: 'message.max.bytes',
    type: 'int',
    default: '1048588',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Largest record batch accepted (after compression). Topic synonym: max.message.bytes.',
  },
  {
    name: 'log.segment.bytes',
    type: 'int',
    default: '1073741824',
    validator: { min: 14 },
    scope: 'broker',
    doc: 'Size at which a segment file is rolled. Topic synonym: segment.bytes.',
  },
  {
    name: 'log.roll.ms',
    type: 'long',
    default: null,
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Age at which a segment is rolled, in ms; wins over log.roll.hours. Topic synonym: segment.ms.',
  },
  {
    name: 'log.roll.hours',
    type: 'int',
    default: '168',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Age at which a segment is rolled, in hours, when log.roll.ms is unset.',
  },
  {
    name: 'log.roll.jitter.ms',
    type: 'long',
    default: null,
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Largest random amount subtracted from the roll time, in ms; wins over log.roll.jitter.hours. Topic synonym: segment.jitter.ms.',
  },
  {
    name: 'log.roll.jitter.hours',
    type: 'int',
    default: '0',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Roll jitter in hours, when log.roll.jitter.ms is unset.',
  },
  {
    name: 'log.retention.ms',
    type: 'long',
    default: null,
    validator: { min: -1 },
    scope: 'broker',
    doc: 'How long a segment is kept, in ms (-1: forever); wins over minutes and hours. Topic synonym: retention.ms.',
  },
  {
    name: 'log.retention.minutes',
    type: 'int',
    default: null,
    scope: 'broker',
    doc: 'Retention in minutes, when log.retention.ms is unset; wins over hours.',
  },
  {
    name: 'log.retention.hours',
    type: 'int',
    default: '168',
    scope: 'broker',
    doc: 'Retention in hours, when log.retention.ms and log.retention.minutes are unset.',
  },
  {
    name: 'log.retention.bytes',
    type: 'long',
    default: '-1',
    scope: 'broker',
    doc: 'Largest size of a partition before old segments are deleted (-1: no limit). Topic synonym: retention.bytes.',
  },
  {
    name: 'log.retention.check.interval.ms',
    type: 'long',
    default: '300000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often retention is enforced.',
  },
  {
    name: 'log.cleanup.policy',
    type: 'list',
    default: 'delete',
    validator: { oneOf: CLEANUP_POLICIES },
    scope: 'broker',
    doc: 'What happens to old segments: delete, compact, or both. Topic synonym: cleanup.policy.',
  },
  {
    name: 'log.index.size.max.bytes',
    type: 'int',
    default: '10485760',
    validator: { min: 4 },
    scope: 'broker',
    doc: "Size of a segment's offset index file. Topic synonym: segment.index.bytes.",
  },
  {
    name: 'log.index.interval.bytes',
    type: 'int',
    default: '4096',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Bytes appended between two offset index entries. Topic synonym: index.interval.bytes.',
  },
  {
    name: 'log.flush.interval.messages',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Messages appended to a partition before it is fsynced (default: never; durability comes from replication). Topic synonym: flush.messages.',
  },
  {
    name: 'log.flush.interval.ms',
    type: 'long',
    default: null,
    scope: 'broker',
    doc: 'Longest time appended data stays un-fsynced; unset: log.flush.scheduler.interval.ms. Topic synonym: flush.ms.',
  },
  {
    name: 'log.flush.scheduler.interval.ms',
    type: 'long',
    default: LONG_MAX,
    scope: 'broker',
    doc: 'How often the flusher checks whether a partition needs an fsync (default: never).',
  },
  {
    name: 'log.flush.offset.checkpoint.interval.ms',
    type: 'int',
    default: '60000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'How often the recovery-point checkpoint is written.',
  },
  {
    name: 'log.flush.start.offset.checkpoint.interval.ms',
    type: 'int',
    default: '60000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'How often the log-start-offset checkpoint is written.',
  },
  {
    name: 'log.segment.delete.delay.ms',
    type: 'long',
    default: '60000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Delay between removing a segment from the log and deleting its files. Topic synonym: file.delete.delay.ms.',
  },
  {
    name: 'log.preallocate',
    type: 'boolean',
    default: 'false',
    scope: 'broker',
    doc: 'Preallocate segment files. Topic synonym: preallocate.',
  },
  {
    name: 'log.message.timestamp.type',
    type: 'string',
    default: 'CreateTime',
    validator: { oneOf: TIMESTAMP_TYPES },
    scope: 'broker',
    doc: "Record timestamps are the producer's (CreateTime) or the broker's (LogAppendTime). Topic synonym: message.timestamp.type.",
  },
  {
    name: 'log.message.timestamp.before.max.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 0 },
    scope: 'broker',
    doc: 'With CreateTime, refuse batches whose timestamp is more than this far in the past. Topic synonym: message.timestamp.before.max.ms.',
  },
  {
    name: 'log.message.timestamp.after.max.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 0 },
    scope: 'broker',
    doc: 'With CreateTime, refuse batches whose timestamp is more than this far in the future (Kafka 3.x default; Kafka 4.0 uses 3600000). Topic synonym: message.timestamp.after.max.ms.',
  },
  {
    name: 'log.message.downconversion.enable',
    type: 'boolean',
    default: 'true',
    scope: 'broker',
    ignored: true,
    doc: 'Ignored: we store and serve magic v2 batches only. Topic synonym: message.downconversion.enable.',
  },
  {
    name: 'log.cleaner.enable',
    type: 'boolean',
    default: 'true',
    scope: 'broker',
    doc: 'Run the log cleaner (needed by compacted topics such as __consumer_offsets).',
  },
  {
    name: 'log.cleaner.threads',
    type: 'int',
    default: '1',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Cleaner workers: Tributary runs one per log dir whatever the value above 0; 0 turns the cleaner off.',
  },
  {
    name: 'log.cleaner.backoff.ms',
    type: 'long',
    default: '15000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Pause of the cleaner when there is nothing to clean.',
  },
  {
    name: 'log.cleaner.dedupe.buffer.size',
    type: 'long',
    default: '134217728',
    scope: 'broker',
    doc: "Memory for the cleaner's key map, all workers together.",
  },
  {
    name: 'log.cleaner.io.buffer.size',
    type: 'int',
    default: '524288',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Cleaner read/write buffer size.',
  },
  {
    name: 'log.cleaner.io.buffer.load.factor',
    type: 'double',
    default: '0.9',
    scope: 'broker',
    doc: "Fill ratio of the cleaner's key map at which a cleaning stops mapping keys (the rest waits for the next one).",
  },
  {
    name: 'log.cleaner.io.max.bytes.per.second',
    type: 'double',
    default: '1.7976931348623157E308',
    scope: 'broker',
    doc: 'Bytes per second the cleaner may read and write, together (default: no limit).',
  },
  {
    name: 'log.cleaner.delete.retention.ms',
    type: 'long',
    default: '86400000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'How long tombstones stay in a compacted log. Topic synonym: delete.retention.ms.',
  },
  {
    name: 'log.cleaner.min.compaction.lag.ms',
    type: 'long',
    default: '0',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Youngest a record can be and still get compacted. Topic synonym: min.compaction.lag.ms.',
  },
  {
    name: 'log.cleaner.max.compaction.lag.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Oldest a record can be before it must be compacted. Topic synonym: max.compaction.lag.ms.',
  },
  {
    name: 'log.cleaner.min.cleanable.ratio',
    type: 'double',
    default: '0.5',
    validator: { min: 0, max: 1 },
    scope: 'broker',
    doc: 'Dirty fraction of a log that triggers cleaning. Topic synonym: min.cleanable.dirty.ratio.',
  },
  {
    name: 'num.recovery.threads.per.data.dir',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    ignored: true,
    doc: 'Ignored: recovery runs on the event loop.',
  },
  {
    name: 'compression.type',
    type: 'string',
    default: 'producer',
    validator: { oneOf: COMPRESSION_TYPES },
    scope: 'broker',
    doc: 'Compression of stored batches: producer keeps what the producer sent; any other value recompresses. Topic synonym: compression.type.',
  },
  {
    name: 'compression.gzip.level',
    type: 'int',
    default: '-1',
    validator: { check: gzipLevel },
    scope: 'broker',
    doc: 'gzip level when the broker compresses (KIP-390). Topic synonym: compression.gzip.level.',
  },
  {
    name: 'compression.lz4.level',
    type: 'int',
    default: '9',
    validator: { min: 1, max: 17 },
    scope: 'broker',
    doc: 'lz4 level when the broker compresses. Topic synonym: compression.lz4.level.',
  },
  {
    name: 'compression.zstd.level',
    type: 'int',
    default: '3',
    validator: { min: -131072, max: 22 },
    scope: 'broker',
    doc: 'zstd level when the broker compresses. Topic synonym: compression.zstd.level.',
  },
  {
    name: 'tributary.max.decompressed.batch.bytes',
    type: 'int',
    default: '67108864',
    validator: { min: 1024 },
    scope: 'broker',
    doc: 'Tributary only (Kafka has no such bound): most bytes one compressed record batch may decompress to. A larger batch (a compression bomb) is refused with INVALID_RECORD instead of being expanded; decompression stops at this bound. Raise it with message.max.bytes if producers send very compressible batches.',
  },

  // Replication
  {
    name: 'min.insync.replicas',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'With acks=all, the fewest in-sync replicas that must have a write before it is acknowledged. Topic synonym: min.insync.replicas.',
  },
  {
    name: 'unclean.leader.election.enable',
    type: 'boolean',
    default: 'false',
    scope: 'broker',
    doc: 'Allow an out-of-sync replica to become leader when no in-sync one is left (loses data). Topic synonym: unclean.leader.election.enable.',
  },
  {
    name: 'replica.lag.time.max.ms',
    type: 'long',
    default: '30000',
    scope: 'broker',
    doc: 'A follower that has not caught up for this long leaves the ISR.',
  },
  {
    name: 'replica.fetch.max.bytes',
    type: 'int',
    default: '1048576',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Bytes per partition a follower asks for in one fetch.',
  },
  {
    name: 'replica.fetch.response.max.bytes',
    type: 'int',
    default: '10485760',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Bytes a follower asks for in one fetch, all partitions together.',
  },
  {
    name: 'replica.fetch.wait.max.ms',
    type: 'int',
    default: '500',
    scope: 'broker',
    doc: 'Longest a follower fetch waits for data on the leader.',
  },
  {
    name: 'replica.fetch.min.bytes',
    type: 'int',
    default: '1',
    scope: 'broker',
    doc: 'Bytes a follower fetch waits for before the leader answers.',
  },
  {
    name: 'replica.fetch.backoff.ms',
    type: 'int',
    default: '1000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Pause of a follower after a fetch error.',
  },
  { name: 'replica.socket.timeout.ms', type: 'int', default: '30000', scope: 'broker', doc: 'Socket timeout of follower fetches.' },
  {
    name: 'replica.high.watermark.checkpoint.interval.ms',
    type: 'long',
    default: '5000',
    scope: 'broker',
    doc: 'How often high watermarks are checkpointed to disk.',
  },
  { name: 'num.replica.fetchers', type: 'int', default: '1', scope: 'broker', doc: 'Fetcher connections per source broker.' },
  {
    name: 'auto.leader.rebalance.enable',
    type: 'boolean',
    default: 'true',
    scope: 'broker',
    doc: 'Move leadership back to preferred replicas periodically.',
  },
  {
    name: 'leader.imbalance.check.interval.seconds',
    type: 'long',
    default: '300',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often leader imbalance is checked.',
  },
  {
    name: 'leader.imbalance.per.broker.percentage',
    type: 'int',
    default: '10',
    scope: 'broker',
    doc: 'Imbalance per broker that triggers a leader rebalance.',
  },

  // Fetch
  {
    name: 'fetch.max.bytes',
    type: 'int',
    default: '57671680',
    validator: { min: 1024 },
    scope: 'broker',
    doc: 'Most bytes returned by one Fetch, all partitions together.',
  },
  {
    name: 'max.incremental.fetch.session.cache.slots',
    type: 'int',
    default: '1000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Incremental fetch sessions (KIP-227) kept per broker.',
  },

  // Consumer groups and offsets
  {
    name: 'group.initial.rebalance.delay.ms',
    type: 'int',
    default: '3000',
    scope: 'broker',
    doc: 'Wait for more members before the first rebalance of an empty group.',
  },
  {
    name: 'group.min.session.timeout.ms',
    type: 'int',
    default: '6000',
    scope: 'broker',
    doc: 'Smallest session timeout a member may ask for.',
  },
  {
    name: 'group.max.session.timeout.ms',
    type: 'int',
    default: '1800000',
    scope: 'broker',
    doc: 'Largest session timeout a member may ask for.',
  },
  {
    name: 'group.max.size',
    type: 'int',
    default: INT_MAX,
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Most members in one consumer group.',
  },
  {
    name: 'offsets.topic.num.partitions',
    type: 'int',
    default: '50',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Partitions of __consumer_offsets (fixed once the topic exists).',
  },
  {
    name: 'offsets.topic.replication.factor',
    type: 'int',
    default: '1',
    validator: { min: 1, max: 32767 },
    scope: 'broker',
    doc: 'Replication factor of __consumer_offsets. Kafka defaults to 3; we default to 1 so a single node works. A cluster should set 3.',
  },
  {
    name: 'offsets.topic.segment.bytes',
    type: 'int',
    default: '104857600',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Segment size of __consumer_offsets.',
  },
  {
    name: 'offsets.topic.compression.codec',
    type: 'int',
    default: '0',
    validator: { min: 0, max: 4 },
    scope: 'broker',
    doc: 'Compression of offset commits (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).',
  },
  {
    name: 'offsets.retention.minutes',
    type: 'int',
    default: '10080',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Committed offsets of an empty group are dropped after this long.',
  },
  {
    name: 'offsets.retention.check.interval.ms',
    type: 'long',
    default: '600000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often expired offsets are removed.',
  },
  {
    name: 'offsets.commit.required.acks',
    type: 'int',
    default: '-1',
    validator: { min: -1, max: 1 },
    scope: 'broker',
    doc: "Acks of the group coordinator's writes to __consumer_offsets: -1 waits for the in-sync replicas (at least the topic's min.insync.replicas), 1 or 0 for the leader alone. Kafka 3.8 deprecated it; leave it at -1.",
  },
  {
    name: 'offsets.commit.timeout.ms',
    type: 'int',
    default: '5000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Longest an offset commit waits for its replicas.',
  },
  {
    name: 'offsets.load.buffer.size',
    type: 'int',
    default: '5242880',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Read size while loading __consumer_offsets.',
  },
  {
    name: 'offset.metadata.max.bytes',
    type: 'int',
    default: '4096',
    scope: 'broker',
    doc: 'Largest metadata string of a committed offset.',
  },

  // Transactions and idempotence
  {
    name: 'transactional.id.expiration.ms',
    type: 'int',
    default: '604800000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'A transactional id unused for this long is forgotten.',
  },
  {
    name: 'transaction.max.timeout.ms',
    type: 'int',
    default: '900000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Largest transaction timeout a producer may ask for.',
  },
  {
    name: 'transaction.state.log.num.partitions',
    type: 'int',
    default: '50',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Partitions of __transaction_state.',
  },
  {
    name: 'transaction.state.log.replication.factor',
    type: 'int',
    default: '1',
    validator: { min: 1, max: 32767 },
    scope: 'broker',
    doc: 'Replication factor of __transaction_state (Kafka: 3; we default to 1 for a single node).',
  },
  {
    name: 'transaction.state.log.min.isr',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'min.insync.replicas of __transaction_state (Kafka: 2; we default to 1 for a single node).',
  },
  {
    name: 'transaction.state.log.segment.bytes',
    type: 'int',
    default: '104857600',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Segment size of __transaction_state.',
  },
  {
    name: 'transaction.abort.timed.out.transaction.cleanup.interval.ms',
    type: 'int',
    default: '10000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often timed-out transactions are aborted.',
  },
  {
    name: 'transaction.remove.expired.transaction.cleanup.interval.ms',
    type: 'int',
    default: '3600000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often expired transactional ids are removed.',
  },
  {
    name: 'producer.id.expiration.ms',
    type: 'int',
    default: '86400000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'Idempotent producer state is dropped after this long without a write.',
  },
  {
    name: 'producer.id.expiration.check.interval.ms',
    type: 'int',
    default: '600000',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often idle producer ids are looked for (producer.id.expiration.ms).',
  },
] as const satisfies readonly ConfigKeyDef[]

// ---------------------------------------------------------------------------------------------
// Topic configs (CreateTopics / AlterConfigs / DescribeConfigs on a topic)
// ---------------------------------------------------------------------------------------------

export const TOPIC_CONFIG_DEFS = [
  {
    name: 'cleanup.policy',
    type: 'list',
    default: 'delete',
    validator: { oneOf: CLEANUP_POLICIES },
    brokerSynonyms: [{ name: 'log.cleanup.policy' }],
    scope: 'topic',
    doc: 'delete, compact, or compact,delete.',
  },
  {
    name: 'compression.type',
    type: 'string',
    default: 'producer',
    validator: { oneOf: COMPRESSION_TYPES },
    brokerSynonyms: [{ name: 'compression.type' }],
    scope: 'topic',
    doc: "Compression of stored batches; producer keeps the producer's.",
  },
  {
    name: 'compression.gzip.level',
    type: 'int',
    default: '-1',
    validator: { check: gzipLevel },
    brokerSynonyms: [{ name: 'compression.gzip.level' }],
    scope: 'topic',
    doc: 'gzip level when the broker compresses.',
  },
  {
    name: 'compression.lz4.level',
    type: 'int',
    default: '9',
    validator: { min: 1, max: 17 },
    brokerSynonyms: [{ name: 'compression.lz4.level' }],
    scope: 'topic',
    doc: 'lz4 level when the broker compresses.',
  },
  {
    name: 'compression.zstd.level',
    type: 'int',
    default: '3',
    validator: { min: -131072, max: 22 },
    brokerSynonyms: [{ name: 'compression.zstd.level' }],
    scope: 'topic',
    doc: 'zstd level when the broker compresses.',
  },
  {
    name: 'delete.retention.ms',
    type: 'long',
    default: '86400000',
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.cleaner.delete.retention.ms' }],
    scope: 'topic',
    doc: 'How long tombstones stay in a compacted topic.',
  },
  {
    name: 'file.delete.delay.ms',
    type: 'long',
    default: '60000',
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.segment.delete.delay.ms' }],
    scope: 'topic',
    doc: "Delay before a removed segment's files are deleted.",
  },
  {
    name: 'flush.messages',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 1 },
    brokerSynonyms: [{ name: 'log.flush.interval.messages' }],
    scope: 'topic',
    doc: 'fsync after this many messages (default: never).',
  },
  {
    name: 'flush.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.flush.interval.ms' }, { name: 'log.flush.scheduler.interval.ms' }],
    scope: 'topic',
    doc: 'fsync when data is this old (default: never).',
  },
  {
    name: 'follower.replication.throttled.replicas',
    type: 'list',
    default: '',
    scope: 'topic',
    doc: 'Replicas throttled on the follower side (partition:broker pairs or *). Accepted; throttling is not implemented yet.',
  },
  {
    name: 'index.interval.bytes',
    type: 'int',
    default: '4096',
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.index.interval.bytes' }],
    scope: 'topic',
    doc: 'Bytes between two offset index entries.',
  },
  {
    name: 'leader.replication.throttled.replicas',
    type: 'list',
    default: '',
    scope: 'topic',
    doc: 'Replicas throttled on the leader side. Accepted; throttling is not implemented yet.',
  },
  {
    name: 'max.compaction.lag.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 1 },
    brokerSynonyms: [{ name: 'log.cleaner.max.compaction.lag.ms' }],
    scope: 'topic',
    doc: 'Oldest a record can be before it must be compacted.',
  },
  {
    name: 'max.message.bytes',
    type: 'int',
    default: '1048588',
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'message.max.bytes' }],
    scope: 'topic',
    doc: 'Largest record batch accepted.',
  },
  {
    name: 'message.downconversion.enable',
    type: 'boolean',
    default: 'true',
    brokerSynonyms: [{ name: 'log.message.downconversion.enable' }],
    scope: 'topic',
    doc: 'Accepted for compatibility; we never down-convert (magic v2 only).',
  },
  {
    name: 'message.timestamp.after.max.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.message.timestamp.after.max.ms' }],
    scope: 'topic',
    doc: 'With CreateTime, refuse timestamps this far in the future.',
  },
  {
    name: 'message.timestamp.before.max.ms',
    type: 'long',
    default: LONG_MAX,
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.message.timestamp.before.max.ms' }],
    scope: 'topic',
    doc: 'With CreateTime, refuse timestamps this far in the past.',
  },
  {
    name: 'message.timestamp.type',
    type: 'string',
    default: 'CreateTime',
    validator: { oneOf: TIMESTAMP_TYPES },
    brokerSynonyms: [{ name: 'log.message.timestamp.type' }],
    scope: 'topic',
    doc: 'CreateTime or LogAppendTime.',
  },
  {
    name: 'min.cleanable.dirty.ratio',
    type: 'double',
    default: '0.5',
    validator: { min: 0, max: 1 },
    brokerSynonyms: [{ name: 'log.cleaner.min.cleanable.ratio' }],
    scope: 'topic',
    doc: 'Dirty fraction that triggers compaction.',
  },
  {
    name: 'min.compaction.lag.ms',
    type: 'long',
    default: '0',
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.cleaner.min.compaction.lag.ms' }],
    scope: 'topic',
    doc: 'Youngest a record can be and still get compacted.',
  },
  {
    name: 'min.insync.replicas',
    type: 'int',
    default: '1',
    validator: { min: 1 },
    brokerSynonyms: [{ name: 'min.insync.replicas' }],
    scope: 'topic',
    doc: 'Fewest in-sync replicas for an acks=all write.',
  },
  {
    name: 'preallocate',
    type: 'boolean',
    default: 'false',
    brokerSynonyms: [{ name: 'log.preallocate' }],
    scope: 'topic',
    doc: 'Preallocate segment files.',
  },
  {
    name: 'retention.bytes',
    type: 'long',
    default: '-1',
    brokerSynonyms: [{ name: 'log.retention.bytes' }],
    scope: 'topic',
    doc: 'Largest size of a partition before old segments are deleted (-1: no limit).',
  },
  {
    name: 'retention.ms',
    type: 'long',
    default: '604800000',
    validator: { min: -1 },
    brokerSynonyms: [
      { name: 'log.retention.ms' },
      { name: 'log.retention.minutes', factor: MINUTE_MS },
      { name: 'log.retention.hours', factor: HOUR_MS },
    ],
    scope: 'topic',
    doc: 'How long data is kept (-1: forever).',
  },
  {
    name: 'segment.bytes',
    type: 'int',
    default: '1073741824',
    validator: { min: 14 },
    brokerSynonyms: [{ name: 'log.segment.bytes' }],
    scope: 'topic',
    doc: 'Segment size at which a new segment is rolled.',
  },
  {
    name: 'segment.index.bytes',
    type: 'int',
    default: '10485760',
    validator: { min: 4 },
    brokerSynonyms: [{ name: 'log.index.size.max.bytes' }],
    scope: 'topic',
    doc: "Size of a segment's offset index file.",
  },
  {
    name: 'segment.jitter.ms',
    type: 'long',
    default: '0',
    validator: { min: 0 },
    brokerSynonyms: [{ name: 'log.roll.jitter.ms' }, { name: 'log.roll.jitter.hours', factor: HOUR_MS }],
    scope: 'topic',
    doc: 'Largest random amount subtracted from segment.ms.',
  },
  {
    name: 'segment.ms',
    type: 'long',
    default: '604800000',
    validator: { min: 1 },
    brokerSynonyms: [{ name: 'log.roll.ms' }, { name: 'log.roll.hours', factor: HOUR_MS }],
    scope: 'topic',
    doc: 'Age at which a segment is rolled.',
  },
  {
    name: 'unclean.leader.election.enable',
    type: 'boolean',
    default: 'false',
    brokerSynonyms: [{ name: 'unclean.leader.election.enable' }],
    scope: 'topic',
    doc: 'Allow an out-of-sync replica to become leader (loses data).',
  },
] as const satisfies readonly ConfigKeyDef[]

/**
 * Broker configs that stand for the same setting (Kafka's DynamicBrokerConfig.brokerConfigSynonyms):
 * DescribeConfigs lists them as synonyms of each other, highest priority first.
 */
export const BROKER_SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['node.id', 'broker.id'],
  ['log.dirs', 'log.dir'],
  ['log.roll.ms', 'log.roll.hours'],
  ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
  ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
  ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
]

// ---------------------------------------------------------------------------------------------
// Types derived from the tables
// ---------------------------------------------------------------------------------------------

type BrokerDef = (typeof BROKER_CONFIG_DEFS)[number]
type TopicDef = (typeof TOPIC_CONFIG_DEFS)[number]

export type BrokerConfigName = BrokerDef['name']
export type TopicConfigName = TopicDef['name']

/** The JS type of a parsed value of each config type. */
export type ValueOfType<T extends ConfigType> = T extends 'int' | 'long' | 'double'
  ? number
  : T extends 'boolean'
    ? boolean
    : T extends 'list'
      ? readonly string[]
      : string

type ValueOfDef<D extends { type: ConfigType; default: string | null }> =
  | ValueOfType<D['type']>
  | (D['default'] extends null ? null : never)

export type BrokerConfigValue<N extends BrokerConfigName> = ValueOfDef<Extract<BrokerDef, { name: N }>>
export type TopicConfigValue<N extends TopicConfigName> = ValueOfDef<Extract<TopicDef, { name: N }>>

/** Every topic config, resolved (no key is ever null at topic level). */
export type TopicConfigValues = { readonly [N in TopicConfigName]: TopicConfigValue<N> }
