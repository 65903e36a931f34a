// DescribeLogDirs (key 35), v1–5; flexible from v2. v1 is v0 with throttling before the response
// (Kafka 4 dropped v0, KIP-896); v3 adds a top-level error code; v4 adds the total and usable
// bytes of the volume each log dir is on (KIP-827); v5 whether the dir is cordoned (Kafka 4.4:
// no new partitions are placed there). A null topic list asks for every partition.
import { f, type Infer, message, T } from '../schema.js'

export const DescribeLogDirsRequest = message({
  apiKey: 35,
  name: 'DescribeLogDirs',
  versions: '1-5',
  flexible: '2+',
  fields: {
    /** null: every partition in every log dir. */
    topics: f.array(
      '0+',
      {
        topic: f.string('0+'),
        partitions: f.arrayOf('0+', T.int32),
      },
      { nullable: '0+' },
    ),
  },
})

export const DescribeLogDirsResponse = message({
  apiKey: 35,
  name: 'DescribeLogDirs',
  versions: '1-5',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('3+', { default: 0 }),
    results: f.array('0+', {
      /** KAFKA_STORAGE_ERROR for an offline log dir. */
      errorCode: f.int16('0+'),
      /** Absolute path of the log dir. */
      logDir: f.string('0+'),
      topics: f.array('0+', {
        name: f.string('0+'),
        partitions: f.array('0+', {
          partitionIndex: f.int32('0+'),
          /** Bytes of the partition's log segments. */
          partitionSize: f.int64('0+'),
          /** max(HW − LEO, 0) for the current log; a future log's lag behind the current one. */
          offsetLag: f.int64('0+'),
          /** A log being moved here by AlterReplicaLogDirs. */
          isFutureKey: f.bool('0+'),
        }),
      }),
      /** Size of the volume the log dir is on; -1 when unknown. */
      totalBytes: f.int64('4+', { default: -1 }),
      /** Bytes of that volume still usable; -1 when unknown. */
      usableBytes: f.int64('4+', { default: -1 }),
      /** No new partitions are placed in a cordoned dir. */
      isCordoned: f.bool('5+', { default: false }),
    }),
  },
})

export type DescribeLogDirsRequestData = Infer<typeof DescribeLogDirsRequest>
export type DescribeLogDirsResponseData = Infer<typeof DescribeLogDirsResponse>
