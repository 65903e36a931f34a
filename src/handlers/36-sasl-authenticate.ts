// SaslAuthenticate v0–2: one SASL token each way; v1+ tells the session lifetime (KIP-368). The
// exchange is the security layer's (security/sasl/authenticator.ts). Errors:
// SASL_AUTHENTICATION_FAILED (answered after connection.failed.authentication.delay.ms, then the
// connection is closed), ILLEGAL_SASL_STATE (no exchange in progress on an authenticated connection).
import { ErrorCode } from '../protocol/errors.js'
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../protocol/messages/36-sasl-authenticate.js'
import { CloseAfterResponse, defineHandler } from './define.js'

export default defineHandler(SaslAuthenticateRequest, SaslAuthenticateResponse, { minVersion: 0, maxVersion: 2 }, async (ctx, req) => {
  const auth = ctx.broker.authentication
  if (!auth) {
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE.code, errorMessage: 'SASL is not enabled', authBytes: Buffer.alloc(0) }
  }
  // The request's bytes may be a view on a socket buffer that is reused once we answer.
  const out = await auth.authenticate(ctx.conn, Buffer.from(req.authBytes), ctx.apiVersion)
  const res = {
    errorCode: out.errorCode,
    errorMessage: out.errorMessage,
    authBytes: out.authBytes,
    sessionLifetimeMs: out.sessionLifetimeMs,
  }
  if (out.closeReason !== undefined) throw new CloseAfterResponse(res, out.closeReason, 'authentication-failed')
  return res
})
