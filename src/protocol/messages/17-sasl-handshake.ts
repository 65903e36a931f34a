// SaslHandshake (key 17), v0–1, never flexible. The client names the SASL mechanism it wants; the
// answer lists the mechanisms the listener enables. v0: the SASL tokens that follow are sent as raw
// size-prefixed frames (no Kafka header); v1: they are wrapped in SaslAuthenticate requests.
import { f, type Infer, message, T } from '../schema.js'

export const SaslHandshakeRequest = message({
  apiKey: 17,
  name: 'SaslHandshake',
  versions: '0-1',
  flexible: 'none',
  fields: {
    mechanism: f.string('0+'),
  },
})

export const SaslHandshakeResponse = message({
  apiKey: 17,
  name: 'SaslHandshake',
  versions: '0-1',
  flexible: 'none',
  fields: {
    errorCode: f.int16('0+'),
    mechanisms: f.arrayOf('0+', T.string),
  },
})

export type SaslHandshakeRequestData = Infer<typeof SaslHandshakeRequest>
export type SaslHandshakeResponseData = Infer<typeof SaslHandshakeResponse>
