// The SCRAM credential admin port (DescribeUserScramCredentials, AlterUserScramCredentials), as
// the handlers see it; security/sasl/scram-credentials.ts implements it over the metadata store.
// Shapes are the APIs' own: mechanisms by Kafka's ScramMechanism type (1 = SCRAM-SHA-256,
// 2 = SCRAM-SHA-512), the salted password as the client computed it.

export interface ScramCredentialInfo {
  mechanism: number
  iterations: number
}

export interface DescribeScramResult {
  user: string
  errorCode: number
  errorMessage: string | null
  credentialInfos: ScramCredentialInfo[]
}

export interface ScramDeletion {
  name: string
  mechanism: number
}

export interface ScramUpsertion {
  name: string
  mechanism: number
  iterations: number
  salt: Buffer
  saltedPassword: Buffer
}

export interface AlterScramResult {
  user: string
  errorCode: number
  errorMessage: string | null
}

export interface ScramCredentialService {
  /** null or empty: every user with a credential. */
  describe(users: readonly string[] | null): DescribeScramResult[]
  alter(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): Promise<AlterScramResult[]>
}
