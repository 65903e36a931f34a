// AlterUserScramCredentials (key 51), v0, flexible (KIP-554). Upsertions carry the salted password
// the client computed (Hi(password, salt, iterations)), never the password.
import { f, type Infer, message } from '../schema.js'

export const AlterUserScramCredentialsRequest = message({
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  versions: '0',
  flexible: '0+',
  fields: {
    deletions: f.array('0+', {
      name: f.string('0+'),
      mechanism: f.int8('0+'),
    }),
    upsertions: f.array('0+', {
      name: f.string('0+'),
      mechanism: f.int8('0+'),
      iterations: f.int32('0+'),
      salt: f.bytes('0+'),
      saltedPassword: f.bytes('0+'),
    }),
  },
})

export const AlterUserScramCredentialsResponse = message({
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    results: f.array('0+', {
      user: f.string('0+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
    }),
  },
})

export type AlterUserScramCredentialsRequestData = Infer<typeof AlterUserScramCredentialsRequest>
export type AlterUserScramCredentialsResponseData = Infer<typeof AlterUserScramCredentialsResponse>
