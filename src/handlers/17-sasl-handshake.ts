// SaslHandshake v0–1: the client picks a SASL mechanism; the answer lists the listener's enabled
// ones. The exchange and its rules are the security layer's (security/sasl/authenticator.ts).
// Errors: UNSUPPORTED_SASL_MECHANISM (then the connection is closed), ILLEGAL_SASL_STATE (not a
// SASL listener, or a handshake that cannot start a re-authentication).
import { ErrorCode } from '../protocol/errors.js'
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../protocol/messages/17-sasl-handshake.js'
import { CloseAfterResponse, defineHandler } from './define.js'

export default defineHandler(SaslHandshakeRequest, SaslHandshakeResponse, { minVersion: 0, maxVersion: 1 }, (ctx, req) => {
  const auth = ctx.broker.authentication
  if (!auth) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms: [] }
  const out = auth.handshake(ctx.conn, req.mechanism, ctx.apiVersion)
  const res = { errorCode: out.errorCode, mechanisms: out.mechanisms }
  if (out.closeReason !== undefined) throw new CloseAfterResponse(res, out.closeReason, 'authentication-failed')
  return res
})
