// Hand-checked byte fixtures of the message declarations: hex fragments joined into bytes, the
// decode-and-encode check of one value, a table of fixtures run the same way, and the uuids they use.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Message } from '../../src/protocol/schema.js'

/** Joins hex fragments (spaces allowed) into bytes. */
export function hex(...parts: string[]): Buffer {
  return Buffer.from(parts.join('').replace(/\s+/g, ''), 'hex')
}

/** decode(bytes) deep-equals value, and encode(value) reproduces bytes exactly. */
export function fixture(msg: Message<any>, version: number, value: unknown, bytes: Buffer): void {
  assert.deepEqual(msg.decode(version, bytes), value)
  assert.equal(msg.encode(version, value as any).toString('hex'), bytes.toString('hex'))
}

export interface HexFixture {
  name: string
  msg: Message<any>
  version: number
  hex: string
  value: any
  /** An encoder input with defaulted fields left out; must encode to the same bytes. */
  sparse?: any
}

/** A suite of fixtures: each hex is well formed, decodes to its value, and its value (sparse too) encodes to it. */
export function describeHexFixtures(title: string, fixtures: readonly HexFixture[], more?: () => void): void {
  describe(title, () => {
    for (const fx of fixtures) {
      const bytes = Buffer.from(fx.hex, 'hex')
      // Guard against a typo in the hex itself (an odd digit count silently drops the last nibble).
      test(`${fx.name}: fixture hex is well formed`, () => {
        assert.match(fx.hex, /^(?:[0-9a-f]{2})*$/)
      })
      test(`${fx.name}: decodes`, () => {
        assert.deepEqual(fx.msg.decode(fx.version, bytes), fx.value)
      })
      test(`${fx.name}: encodes`, () => {
        assert.deepEqual(fx.msg.encode(fx.version, fx.value), bytes)
      })
      if (fx.sparse) {
        test(`${fx.name}: encodes with defaulted fields left out`, () => {
          assert.deepEqual(fx.msg.encode(fx.version, fx.sparse), bytes)
        })
      }
    }
    more?.()
  })
}

/** The zero uuid in Kafka's base64url form. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA'
export const ZERO_UUID_HEX = '00'.repeat(16)
/** The uuid 00 01 02 … 0f. */
export const TOPIC_ID = 'AAECAwQFBgcICQoLDA0ODw'
export const TOPIC_ID_HEX = '000102030405060708090a0b0c0d0e0f'
/** The uuid 01 02 03 … 10. */
export const ID_1_16 = 'AQIDBAUGBwgJCgsMDQ4PEA'
export const ID_1_16_HEX = '0102030405060708090a0b0c0d0e0f10'
/** int64 -1. */
export const I64_MINUS_1 = 'ffffffffffffffff'
