// The LogDirService port: this broker's log dirs and the partitions in them (DescribeLogDirs).

export interface LogDirPartition {
  topic: string
  partition: number
  /** Bytes of the partition's log segments (.log files; indexes not counted, as in Kafka). */
  sizeBytes: number
  /** max(HW − LEO, 0): how far the log end is behind the high watermark (0 on a leader). */
  offsetLag: number
}

export interface LogDirDescription {
  /** Absolute path. */
  path: string
  /** 0, or KAFKA_STORAGE_ERROR's code for an offline dir. */
  errorCode: number
  /** Size of the volume the dir is on and the bytes still usable there; -1 when unknown. */
  totalBytes: number
  usableBytes: number
  partitions: LogDirPartition[]
}

export interface LogDirService {
  /** Every log dir of this broker with the partitions it holds (DescribeLogDirs). */
  describe(): Promise<LogDirDescription[]>
}
