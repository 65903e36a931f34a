// DescribeUserScramCredentials (key 50), v0, flexible (KIP-554). Users null or empty: every user
// with a credential. Mechanism is Kafka's ScramMechanism type (1 = SCRAM-SHA-256, 2 = SCRAM-SHA-512).
import { f, type Infer, message } from '../schema.js'

export const DescribeUserScramCredentialsRequest = message({
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  versions: '0',
  flexible: '0+',
  fields: {
    users: f.array('0+', { name: f.string('0+') }, { nullable: '0+' }),
  },
})

export const DescribeUserScramCredentialsResponse = message({
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    results: f.array('0+', {
      user: f.string('0+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
      credentialInfos: f.array('0+', {
        mechanism: f.int8('0+'),
        iterations: f.int32('0+'),
      }),
    }),
  },
})

export type DescribeUserScramCredentialsRequestData = Infer<typeof DescribeUserScramCredentialsRequest>
export type DescribeUserScramCredentialsResponseData = Infer<typeof DescribeUserScramCredentialsResponse>
