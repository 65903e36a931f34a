// InitProducerId v0–5: real producer ids (allocated in durable blocks, never reused across restarts)
// and epochs, so idempotent producers — the Java client's default — start. As in Kafka, a producer
// without a transactional id always gets a fresh id with epoch 0. Transactions are not served yet, so a
// transactional id is refused with UNSUPPORTED_VERSION, which clients report as a broker lacking
// transaction support (COORDINATOR_NOT_AVAILABLE would make them retry forever).
import { ErrorCode, toErrorCode } from '../protocol/errors.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../protocol/messages/22-init-producer-id.js'
import { defineHandler } from './define.js'

export default defineHandler(InitProducerIdRequest, InitProducerIdResponse, { minVersion: 0, maxVersion: 5 }, async (ctx, req) => {
  if (req.transactionalId !== null) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION.code, producerId: -1, producerEpoch: -1 }
  }
  try {
    const id = await ctx.broker.producerIds.initProducerId()
    return { throttleTimeMs: 0, errorCode: 0, ...id }
  } catch (err) {
    return { throttleTimeMs: 0, errorCode: toErrorCode(err), producerId: -1, producerEpoch: -1 }
  }
})
