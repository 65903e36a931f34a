// The "consumer" protocol type's embedded messages (Kafka's ConsumerProtocol): the subscription a
// member sends as its JoinGroup metadata, and the assignment the leader hands each member through
// SyncGroup. They are not API messages: each is an int16 version followed by that version's
// fields, never flexible. Versions 0–3 of both:
//   Subscription  topics, userData (nullable bytes); ownedPartitions v1+ (KIP-429);
//                 generationId v2+ (default -1, KIP-792); rackId v3+ (nullable, KIP-881).
//   Assignment    assignedPartitions { topic, partitions }, userData (nullable bytes); v1–3 add
//                 no field (the versions follow the subscription's).
// Decoding tolerates what Kafka's ConsumerProtocol tolerates: a version newer than ours is read as
// our newest (fields are only ever appended), and bytes after the known fields are ignored.
//
// The group coordinator reads only the subscribed topics (OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC,
// KIP-496 offset expiry), the client's group member and `tributary group describe` read and write
// the rest; the *Topics / decodeAssignment readers take just the leading fields, so a member's bytes
// that end early after them still count, as they always have here.
import { Reader } from './primitives/reader.js'
import { Writer } from './primitives/writer.js'
import { buildCodec, type Codec, type Encodable, f, type InferFields, struct, T } from './schema.js'

const LATEST_VERSION = 3

const topicPartitions = (v: string) => ({ topic: f.string(v), partitions: f.arrayOf(v, T.int32) })

const SUBSCRIPTION_FIELDS = {
  topics: f.arrayOf('0+', T.string),
  userData: f.bytes('0+', { nullable: '0+', default: null }),
  ownedPartitions: f.array('1+', topicPartitions('1+')),
  generationId: f.int32('2+', { default: -1 }),
  rackId: f.string('3+', { nullable: '3+', default: null }),
}

const ASSIGNMENT_FIELDS = {
  assignedPartitions: f.array('0+', topicPartitions('0+')),
  userData: f.bytes('0+', { nullable: '0+', default: null }),
}

export const ConsumerProtocolSubscription = struct(SUBSCRIPTION_FIELDS)
export const ConsumerProtocolAssignment = struct(ASSIGNMENT_FIELDS)
export type Subscription = InferFields<typeof SUBSCRIPTION_FIELDS>
export type Assignment = InferFields<typeof ASSIGNMENT_FIELDS>

export interface TopicAssignment {
  topic: string
  partitions: number[]
}

/** One codec per version, built on first use. */
function versioned<V>(type: ReturnType<typeof struct>): (version: number) => Codec<V> {
  const codecs = new Map<number, Codec<V>>()
  return (version) => {
    let c = codecs.get(version)
    if (!c) codecs.set(version, (c = buildCodec(type, version, false) as Codec<V>))
    return c
  }
}

const subscriptionCodec = versioned<Subscription>(ConsumerProtocolSubscription)
const assignmentCodec = versioned<Assignment>(ConsumerProtocolAssignment)
// The leading field of each, alone: what the topic readers below need.
const subscriptionTopics = buildCodec(struct({ topics: SUBSCRIPTION_FIELDS.topics }), 0, false)
const assignedPartitions = buildCodec(struct({ assignedPartitions: ASSIGNMENT_FIELDS.assignedPartitions }), 0, false)

function encodeVersioned<V>(codec: Codec<V>, version: number, value: Encodable<V>): Buffer {
  if (!Number.isInteger(version) || version < 0 || version > LATEST_VERSION) throw new RangeError(`no consumer protocol version ${version}`)
  const w = new Writer()
  w.int16(version)
  codec.encode(w, value)
  return w.toBuffer()
}

/** Reads the version, then `read` at it (a newer one as ours); null when the bytes do not decode. */
function decodeVersioned<V>(bytes: Buffer, read: (version: number, r: Reader) => V): V | null {
  try {
    const r = new Reader(bytes)
    const version = r.int16()
    if (version < 0) return null
    return read(Math.min(version, LATEST_VERSION), r)
  } catch {
    return null
  }
}

export function encodeSubscriptionMessage(version: number, value: Encodable<Subscription>): Buffer {
  return encodeVersioned(subscriptionCodec(version), version, value)
}

/** The whole subscription, or null when the bytes are not one. */
export function decodeSubscription(bytes: Buffer): Subscription | null {
  return decodeVersioned(bytes, (v, r) => subscriptionCodec(v).decode(r))
}

export function encodeAssignmentMessage(version: number, value: Encodable<Assignment>): Buffer {
  return encodeVersioned(assignmentCodec(version), version, value)
}

/** The whole assignment, or null when the bytes are not one (empty bytes: nothing assigned). */
export function decodeAssignmentMessage(bytes: Buffer): Assignment | null {
  if (bytes.length === 0) return { assignedPartitions: [], userData: null }
  return decodeVersioned(bytes, (v, r) => assignmentCodec(v).decode(r))
}

/** The subscribed topics, or null when the bytes are not a consumer subscription. */
export function decodeSubscriptionTopics(metadata: Buffer): string[] | null {
  return decodeVersioned(metadata, (_v, r) => subscriptionTopics.decode(r).topics as string[])
}

/** A v0 subscription (for tests and tools): the topics, null user data. */
export function encodeSubscription(topics: readonly string[]): Buffer {
  return encodeSubscriptionMessage(0, { topics: [...topics], userData: null })
}

/** The assigned partitions, or null when the bytes are not a consumer assignment. */
export function decodeAssignment(bytes: Buffer): TopicAssignment[] | null {
  if (bytes.length === 0) return [] // a member assigned nothing may get empty bytes
  return decodeVersioned(bytes, (_v, r) => assignedPartitions.decode(r).assignedPartitions as TopicAssignment[])
}

/** A v0 assignment with no user data. */
export function encodeAssignment(assignment: readonly TopicAssignment[]): Buffer {
  return encodeAssignmentMessage(0, {
    assignedPartitions: assignment.map((a) => ({ topic: a.topic, partitions: [...a.partitions] })),
    userData: null,
  })
}
