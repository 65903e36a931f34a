// Reconciliation of one consumer-protocol member towards its target assignment (KIP-848; Kafka's
// CurrentAssignmentBuilder). The member's epoch only advances to the target epoch once it no longer
// owns anything the target takes away, and a partition is only handed to it once no other member
// of the group owns it (assigned or pending revocation), so no partition ever has two owners:
//
//   STABLE ──target epoch moved──▶ compute next
//   compute next: kept = owned ∩ target, revoke = owned − target, wanted = target − owned
//     revoke ≠ ∅                 → UNREVOKED_PARTITIONS (epoch unchanged, assignment = kept)
//     some of wanted still owned → UNRELEASED_PARTITIONS (epoch = target, assignment = kept + free)
//     otherwise                  → STABLE (epoch = target, assignment = kept + wanted)
//   UNREVOKED_PARTITIONS ──heartbeat reports none of the revoked partitions──▶ compute next
//   UNRELEASED_PARTITIONS ──any heartbeat──▶ compute next (picks up what was released meanwhile)
import { type Assignment, addPartition, emptyAssignment, hasPartition, partitionCount, partitionsOf } from './assignment.js'

export type MemberState = 'STABLE' | 'UNREVOKED_PARTITIONS' | 'UNRELEASED_PARTITIONS'

export interface ReconcileState {
  state: MemberState
  memberEpoch: number
  previousMemberEpoch: number
  /** What the member may own now (sent to it as its assignment). */
  assigned: Assignment
  /** What it must give up before it advances. */
  pendingRevocation: Assignment
}

/**
 * The member's next state. `ownedElsewhere(t, p)` says whether another member still owns the
 * partition; `reported` is the owned partitions the heartbeat carried, or null when it carried none.
 */
export function reconcile(
  m: ReconcileState,
  targetEpoch: number,
  target: Assignment,
  ownedElsewhere: (topicId: string, partition: number) => boolean,
  reported: Assignment | null,
): ReconcileState {
  switch (m.state) {
    case 'STABLE':
      return m.memberEpoch === targetEpoch ? m : computeNext(m, targetEpoch, target, ownedElsewhere)
    case 'UNREVOKED_PARTITIONS':
      if (reported === null || ownsAny(reported, m.pendingRevocation)) return m
      return computeNext(m, targetEpoch, target, ownedElsewhere)
    case 'UNRELEASED_PARTITIONS':
      return computeNext(m, targetEpoch, target, ownedElsewhere)
  }
}

function computeNext(
  m: ReconcileState,
  targetEpoch: number,
  target: Assignment,
  ownedElsewhere: (topicId: string, partition: number) => boolean,
): ReconcileState {
  const kept = emptyAssignment()
  const revoke = emptyAssignment()
  for (const [t, p] of partitionsOf(m.assigned)) addPartition(hasPartition(target, t, p) ? kept : revoke, t, p)
  if (partitionCount(revoke) > 0) {
    return {
      state: 'UNREVOKED_PARTITIONS',
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      assigned: kept,
      pendingRevocation: revoke,
    }
  }
  let unreleased = false
  for (const [t, p] of partitionsOf(target)) {
    if (hasPartition(kept, t, p)) continue
    if (ownedElsewhere(t, p)) unreleased = true
    else addPartition(kept, t, p)
  }
  return {
    state: unreleased ? 'UNRELEASED_PARTITIONS' : 'STABLE',
    memberEpoch: targetEpoch,
    previousMemberEpoch: m.memberEpoch === targetEpoch ? m.previousMemberEpoch : m.memberEpoch,
    assigned: kept,
    pendingRevocation: emptyAssignment(),
  }
}

function ownsAny(owned: Assignment, partitions: Assignment): boolean {
  for (const [t, p] of partitionsOf(partitions)) if (hasPartition(owned, t, p)) return true
  return false
}
