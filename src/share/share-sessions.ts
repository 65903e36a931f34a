// The share session cache of a partition leader (KIP-932; Kafka's ShareSessionCache): one session
// per share-group member on this broker, keyed by group id and member id. A session holds the
// share-partitions the member fetches from this broker, so a ShareFetch after the first names only
// what changed (new partitions, forgotten topics) and the acknowledgements.
//
// Epochs (ShareRequestMetadata): 0 opens a session (an existing one of the member is replaced);
// n > 0 must be the session's next epoch (no session: SHARE_SESSION_NOT_FOUND, another epoch:
// INVALID_SHARE_SESSION_EPOCH), and moves it on — past 2^31−1 it wraps to 1; −1 is the final
// request: it closes the session. At most maxSessions sessions (Kafka's
// group.share.max.share.sessions, 2000): opening one more is SHARE_SESSION_LIMIT_REACHED. A
// session has at most maxPartitions partitions (INVALID_REQUEST past it) and all sessions together
// at most maxTotalPartitions (SHARE_SESSION_LIMIT_REACHED), so no client grows the cache without
// bound. A session belongs to the connection that opened it: when that connection
// closes, its sessions go (Kafka 4.1+), and their members' records are released.
import { KafkaError } from '../protocol/errors.js'

/** Kafka's group.share.max.share.sessions default. */
export const DEFAULT_MAX_SHARE_SESSIONS = 2000
/** A bound of Tributary's own on one session's share-partitions. */
export const DEFAULT_MAX_SESSION_PARTITIONS = 10_000
/** A bound of Tributary's own on the partitions of all sessions together. */
export const DEFAULT_MAX_TOTAL_SESSION_PARTITIONS = 200_000

export const INITIAL_EPOCH = 0
export const FINAL_EPOCH = -1

export interface SessionPartition {
  topicId: string
  partition: number
}

export interface ShareSession {
  readonly groupId: string
  readonly memberId: string
  /** The epoch the member's next request must carry. */
  epoch: number
  /** The connection the session was opened on. */
  readonly connectionId: number
  /** In the order they were added; keyed by `${topicId}:${partition}`. */
  readonly partitions: Map<string, SessionPartition>
}

export function nextEpoch(epoch: number): number {
  return epoch >= 0x7fffffff ? 1 : epoch + 1
}

function sessionKey(groupId: string, memberId: string): string {
  return `${groupId}\u0000${memberId}`
}

export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>()
  private totalPartitions = 0

  constructor(
    private readonly maxSessions = DEFAULT_MAX_SHARE_SESSIONS,
    private readonly maxPartitions = DEFAULT_MAX_SESSION_PARTITIONS,
    private readonly maxTotalPartitions = DEFAULT_MAX_TOTAL_SESSION_PARTITIONS,
  ) {}

  /** The partitions of all sessions. */
  get partitionCount(): number {
    return this.totalPartitions
  }

  get size(): number {
    return this.sessions.size
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(sessionKey(groupId, memberId))
  }

  /** Epoch 0: a new session with `partitions`; the member's previous one (if any) is replaced and returned. */
  open(
    groupId: string,
    memberId: string,
    connectionId: number,
    partitions: readonly SessionPartition[],
  ): { session: ShareSession; replaced?: ShareSession } {
    const key = sessionKey(groupId, memberId)
    const replaced = this.sessions.get(key)
    if (!replaced && this.sessions.size >= this.maxSessions) throw new KafkaError('SHARE_SESSION_LIMIT_REACHED')
    const session: ShareSession = { groupId, memberId, epoch: nextEpoch(INITIAL_EPOCH), connectionId, partitions: new Map() }
    if (replaced) this.drop(key, replaced)
    this.add(session, partitions)
    this.sessions.set(key, session)
    return replaced ? { session, replaced } : { session }
  }

  /** A request at epoch > 0: the session, moved on to the next epoch. */
  continue(groupId: string, memberId: string, epoch: number): ShareSession {
    const session = this.sessions.get(sessionKey(groupId, memberId))
    if (!session) throw new KafkaError('SHARE_SESSION_NOT_FOUND')
    if (session.epoch !== epoch) throw new KafkaError('INVALID_SHARE_SESSION_EPOCH')
    session.epoch = nextEpoch(epoch)
    return session
  }

  /** The final request (epoch −1): the session is removed and returned. */
  close(groupId: string, memberId: string): ShareSession {
    const key = sessionKey(groupId, memberId)
    const session = this.sessions.get(key)
    if (!session) throw new KafkaError('SHARE_SESSION_NOT_FOUND')
    this.drop(key, session)
    return session
  }

  /** Adds partitions to a session (INVALID_REQUEST past the bound; nothing is added then). */
  add(session: ShareSession, partitions: readonly SessionPartition[]): void {
    const fresh = partitions.filter((p) => !session.partitions.has(`${p.topicId}:${p.partition}`))
    if (session.partitions.size + fresh.length > this.maxPartitions) {
      throw new KafkaError('INVALID_REQUEST', `a share session holds at most ${this.maxPartitions} partitions`)
    }
    if (this.totalPartitions + fresh.length > this.maxTotalPartitions) {
      throw new KafkaError('SHARE_SESSION_LIMIT_REACHED', 'the share sessions of this broker hold too many partitions')
    }
    for (const p of fresh) {
      const k = `${p.topicId}:${p.partition}`
      if (session.partitions.has(k)) continue
      session.partitions.set(k, { topicId: p.topicId, partition: p.partition })
      // Counted only while the session is in the cache (a session being opened is added just after).
      this.totalPartitions++
    }
  }

  /** ShareFetch's forgottenTopicsData. */
  forget(session: ShareSession, forgotten: ReadonlyArray<{ topicId: string; partitions: readonly number[] }>): void {
    for (const t of forgotten) for (const p of t.partitions) if (session.partitions.delete(`${t.topicId}:${p}`)) this.totalPartitions--
  }

  /** Removes the sessions opened on a connection that closed; returns them. */
  removeConnection(connectionId: number): ShareSession[] {
    const out: ShareSession[] = []
    for (const [key, s] of this.sessions) {
      if (s.connectionId === connectionId) {
        this.drop(key, s)
        out.push(s)
      }
    }
    return out
  }

  /** Removes this session if it is still the member's current one (true if it was). */
  remove(session: ShareSession): boolean {
    const key = sessionKey(session.groupId, session.memberId)
    if (this.sessions.get(key) !== session) return false
    this.drop(key, session)
    return true
  }

  private drop(key: string, session: ShareSession): void {
    this.sessions.delete(key)
    this.totalPartitions -= session.partitions.size
  }
}
