// The records of `__transaction_state`: one record per transactional id, pure bytes ↔ values, no
// I/O (txn-log.ts appends and replays them).
//
// On-disk contract: Kafka's TransactionLogKey v0 and TransactionLogValue v0–1, each prefixed by its
// int16 version as Kafka's CoordinatorRecord serde writes them, so Kafka's tools read ours and a log
// Kafka wrote replays here.
//   key   = int16 0 + transactionalId string (int16 length)
//   value = int16 version + TransactionLogValue at that version (v1 is flexible: compact arrays and
//           strings, tagged PreviousProducerId 0, NextProducerId 1, ClientTransactionVersion 2,
//           NextProducerEpoch 3); null = tombstone (the id expired).
// We write v1 (transaction.version ≥ 1, as Kafka does) and read both. The transaction's partitions
// are stored grouped by topic; a null partition list reads as none. Kafka does not store the last
// producer epoch; it reads back as -1.
import { Reader } from '../../protocol/primitives/reader.js'
import { Writer } from '../../protocol/primitives/writer.js'
import { f, type Infer, message, T } from '../../protocol/schema.js'

export const TXN_LOG_KEY_VERSION = 0
export const TXN_LOG_VALUE_VERSION = 1

const TransactionLogKey = message({
  apiKey: 0,
  name: 'TransactionLogKey',
  versions: '0',
  flexible: 'none',
  fields: {
    transactionalId: f.string('0'),
  },
})

const TransactionLogValue = message({
  apiKey: 0,
  name: 'TransactionLogValue',
  versions: '0-1',
  flexible: '1+',
  fields: {
    producerId: f.int64('0+'),
    previousProducerId: f.int64('1+', { tagged: '1+', tag: 0, default: -1 }),
    nextProducerId: f.int64('1+', { tagged: '1+', tag: 1, default: -1 }),
    producerEpoch: f.int16('0+'),
    nextProducerEpoch: f.int16('1+', { tagged: '1+', tag: 3, default: -1 }),
    transactionTimeoutMs: f.int32('0+'),
    transactionStatus: f.int8('0+'),
    transactionPartitions: f.array('0+', { topic: f.string('0+'), partitionIds: f.arrayOf('0+', T.int32) }, { nullable: '0+' }),
    transactionLastUpdateTimestampMs: f.int64('0+'),
    transactionStartTimestampMs: f.int64('0+'),
    clientTransactionVersion: f.int16('1+', { tagged: '1+', tag: 2, default: 0 }),
  },
})

export type TxnLogValue = Omit<Infer<typeof TransactionLogValue>, 'transactionPartitions'> & {
  transactionPartitions: Array<{ topic: string; partitionIds: number[] }>
}

/** A record that does not decode. */
export class TxnRecordError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TxnRecordError'
  }
}

export function encodeTxnKey(transactionalId: string): Buffer {
  const body = TransactionLogKey.encode(TXN_LOG_KEY_VERSION, { transactionalId })
  return Buffer.concat([new Writer(2).int16(TXN_LOG_KEY_VERSION).toBuffer(), body])
}

export function encodeTxnValue(value: TxnLogValue, version = TXN_LOG_VALUE_VERSION): Buffer {
  const body = TransactionLogValue.encode(version, value)
  return Buffer.concat([new Writer(2).int16(version).toBuffer(), body])
}

export function decodeTxnKey(key: Buffer | null): string {
  if (key === null) throw new TxnRecordError('a transaction log record has no key')
  const r = new Reader(key)
  const version = r.int16()
  if (version !== TXN_LOG_KEY_VERSION) throw new TxnRecordError(`unknown transaction log key version ${version}`)
  try {
    return TransactionLogKey.codec(0).decode(r).transactionalId
  } catch (err) {
    throw new TxnRecordError(`transaction log key does not decode: ${(err as Error).message}`)
  }
}

/** null for a tombstone. */
export function decodeTxnValue(value: Buffer | null): TxnLogValue | null {
  if (value === null) return null
  const r = new Reader(value)
  let version: number
  try {
    version = r.int16()
  } catch {
    throw new TxnRecordError('transaction log value is shorter than its version')
  }
  if (version < 0 || version > TXN_LOG_VALUE_VERSION) throw new TxnRecordError(`unknown transaction log value version ${version}`)
  try {
    const v = TransactionLogValue.codec(version).decode(r)
    return { ...v, transactionPartitions: v.transactionPartitions ?? [] }
  } catch (err) {
    throw new TxnRecordError(`transaction log value v${version} does not decode: ${(err as Error).message}`)
  }
}
