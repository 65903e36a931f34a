// SaslAuthenticate (key 36), v0–2; flexible from v2. One SASL token each way. v1 adds the session
// lifetime to the response (KIP-368: the client re-authenticates on the same connection before it
// ends; 0 = no limit).
import { f, type Infer, message } from '../schema.js'

export const SaslAuthenticateRequest = message({
  apiKey: 36,
  name: 'SaslAuthenticate',
  versions: '0-2',
  flexible: '2+',
  fields: {
    authBytes: f.bytes('0+'),
  },
})

export const SaslAuthenticateResponse = message({
  apiKey: 36,
  name: 'SaslAuthenticate',
  versions: '0-2',
  flexible: '2+',
  fields: {
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    authBytes: f.bytes('0+'),
    sessionLifetimeMs: f.int64('1+', { default: 0 }),
  },
})

export type SaslAuthenticateRequestData = Infer<typeof SaslAuthenticateRequest>
export type SaslAuthenticateResponseData = Infer<typeof SaslAuthenticateResponse>
