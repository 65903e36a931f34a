// Unit tests of which requests count against which client quota (src/handlers/throttle.ts), with a
// quota service that records what it is told: a ShareFetch counts its response bytes against
// consumer_byte_rate as a consumer Fetch does, has its max bytes capped, and is answered without
// topics when throttled (the bytes taken back); ShareAcknowledge counts against request_percentage only.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { capFetch, measure, throttledResponse } from '../../../src/handlers/throttle.js'
import { ANONYMOUS } from '../../../src/network/principal.js'
import type { QuotaService } from '../../../src/ports/quotas.js'

function recordingQuotas(throttleOn: string, cap = 1000) {
  const calls: string[] = []
  const quotas = {
    record: (type: string, _p: unknown, _c: string, value: number) => {
      calls.push(`record ${type} ${value}`)
      return type === throttleOn ? 500 : 0
    },
    unrecord: (type: string, _p: unknown, _c: string, value: number) => void calls.push(`unrecord ${type} ${value}`),
    fetchBytesCap: () => cap,
  } as unknown as QuotaService
  return { quotas, calls }
}

const measured = (apiName: string) => ({
  principal: ANONYMOUS,
  clientId: 'c',
  apiName,
  req: {},
  requestBytes: 10,
  busyMs: 1,
  responseBytes: 20_000,
  earnedMs: 0,
})

test('a ShareFetch over consumer_byte_rate is throttled and its bytes taken back', () => {
  const { quotas, calls } = recordingQuotas('fetch')
  assert.deepEqual(measure(quotas, measured('ShareFetch')), { ms: 500, quota: 'fetch' })
  assert.deepEqual(calls, ['record request 1', 'record fetch 20000', 'unrecord fetch 20000'])
})

test('ShareAcknowledge counts against request_percentage only', () => {
  const { quotas, calls } = recordingQuotas('fetch')
  assert.deepEqual(measure(quotas, measured('ShareAcknowledge')), { ms: 0, quota: 'controller_mutation' })
  assert.deepEqual(calls, ['record request 1'])
})

test("a ShareFetch's max bytes is capped to what the quota allows in a window", () => {
  const { quotas } = recordingQuotas('none', 1000)
  const req = { maxBytes: 50 << 20 }
  capFetch(quotas, ANONYMOUS, 'c', 'ShareFetch', req)
  assert.equal(req.maxBytes, 1000)
})

test('a throttled ShareFetch answers no topics and no lock timeout; one that failed keeps its error', () => {
  const res = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 15000, responses: [{}], nodeEndpoints: [{}] }
  assert.deepEqual(throttledResponse('ShareFetch', res, 500), {
    response: { ...res, throttleTimeMs: 500, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] },
    emptied: true,
  })
  const failed = { ...res, errorCode: 73 }
  assert.deepEqual(throttledResponse('ShareFetch', failed, 500), { response: { ...failed, throttleTimeMs: 500 }, emptied: false })
})
