// The line splitter of `tributary produce` against a plain split of the whole input, for every way
// of cutting the input into chunks; escapes in --delimiter/--key-separator; the key split; the
// progress and summary lines.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { UsageError } from '../../../src/cli/common.js'
import { LineSplitter, LineTooLongError, parseEscapes, splitKey } from '../../../src/cli/produce/lines.js'
import { barLine, formatBytes, plainLine, ProgressLine, SCREENFUL_RECORDS } from '../../../src/cli/produce/progress.js'
import { summaryText } from '../../../src/cli/produce/run.js'

/** What the splitter must produce: the pieces between delimiters, without a trailing empty one. */
function reference(input: Buffer, d: Buffer): string[] {
  const out: string[] = []
  let start = 0
  for (;;) {
    const i = input.indexOf(d, start)
    if (i < 0) break
    out.push(input.subarray(start, i).toString('latin1'))
    start = i + d.length
  }
  if (start < input.length) out.push(input.subarray(start).toString('latin1'))
  return out
}

function splitInChunks(input: Buffer, d: Buffer, cuts: number[], max?: number): string[] {
  const s = new LineSplitter(d, max)
  const out: string[] = []
  let prev = 0
  for (const c of [...cuts, input.length]) {
    for (const line of s.push(input.subarray(prev, c))) out.push(line.toString('latin1'))
    prev = c
  }
  const last = s.end()
  if (last) out.push(last.toString('latin1'))
  return out
}

/** A deterministic pseudo-random sequence (tests must not depend on luck). */
function lcg(seed: number): () => number {
  let x = seed
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    return x / 2 ** 32
  }
}

describe('LineSplitter', () => {
  it('splits at newlines; a trailing delimiter makes no empty record, empty lines inside do', () => {
    assert.deepEqual(splitInChunks(Buffer.from('a\nb\n'), Buffer.from('\n'), []), ['a', 'b'])
    assert.deepEqual(splitInChunks(Buffer.from('a\n\nb'), Buffer.from('\n'), []), ['a', '', 'b'])
    assert.deepEqual(splitInChunks(Buffer.from('\n'), Buffer.from('\n'), []), [''])
    assert.deepEqual(splitInChunks(Buffer.from(''), Buffer.from('\n'), []), [])
    assert.deepEqual(splitInChunks(Buffer.from('a\r\nb'), Buffer.from('\n'), []), ['a\r', 'b'], 'bytes are kept as they are')
  })

  it('gives the same lines however the input is cut into chunks (one- and multi-byte delimiters)', () => {
    const rand = lcg(7)
    for (const delim of ['\n', '\r\n', '||', 'abab', '\0']) {
      const d = Buffer.from(delim)
      const alphabet = Buffer.from(`ab|\r\n\0x${delim}`)
      for (let round = 0; round < 300; round++) {
        const len = Math.floor(rand() * 40)
        const input = Buffer.alloc(len)
        for (let i = 0; i < len; i++) input[i] = alphabet[Math.floor(rand() * alphabet.length)]!
        const cuts: number[] = []
        for (let i = 1; i < len; i++) if (rand() < 0.4) cuts.push(i)
        assert.deepEqual(
          splitInChunks(input, d, cuts),
          reference(input, d),
          `${JSON.stringify(delim)} ${JSON.stringify(input.toString('latin1'))} cut at ${cuts}`,
        )
      }
    }
  })

  it('keeps binary and UTF-8 bytes exactly, also when a character is cut between chunks', () => {
    const input = Buffer.concat([Buffer.from('é✓\n'), Buffer.from([0xff, 0x00, 0xfe]), Buffer.from('\n😀')])
    for (let cut = 1; cut < input.length; cut++) {
      const s = new LineSplitter(Buffer.from('\n'))
      const lines = [...s.push(input.subarray(0, cut)), ...s.push(input.subarray(cut))]
      const last = s.end()
      if (last) lines.push(last)
      assert.deepEqual(lines, [Buffer.from('é✓'), Buffer.from([0xff, 0x00, 0xfe]), Buffer.from('😀')], `cut at ${cut}`)
    }
  })

  it('counts lines and refuses one longer than the limit, naming it', () => {
    const s = new LineSplitter(Buffer.from('\n'), 5)
    assert.equal(s.push(Buffer.from('abc\n12345\n')).length, 2)
    assert.equal(s.lines, 2)
    s.push(Buffer.from('123'))
    assert.equal(s.pendingBytes, 3)
    assert.throws(
      () => s.push(Buffer.from('456')),
      (e: unknown) => e instanceof LineTooLongError && e.line === 3,
    )
    assert.throws(
      () => new LineSplitter(Buffer.from('\n'), 2).push(Buffer.from('abc\n')),
      (e: unknown) => e instanceof LineTooLongError && e.line === 1,
    )
  })
})

describe('parseEscapes', () => {
  it('turns \\n \\r \\t \\0 \\\\ \\xHH into bytes and keeps other text as UTF-8', () => {
    assert.deepEqual(parseEscapes('\\n', 'd'), Buffer.from('\n'))
    assert.deepEqual(parseEscapes('\\r\\n', 'd'), Buffer.from('\r\n'))
    assert.deepEqual(parseEscapes('a\\tb', 'd'), Buffer.from('a\tb'))
    assert.deepEqual(parseEscapes('\\0', 'd'), Buffer.from([0]))
    assert.deepEqual(parseEscapes('\\\\', 'd'), Buffer.from('\\'))
    assert.deepEqual(parseEscapes('\\x1e', 'd'), Buffer.from([0x1e]))
    assert.deepEqual(parseEscapes('→', 'd'), Buffer.from('→'))
    assert.deepEqual(parseEscapes('\n', 'd'), Buffer.from('\n'), 'a real newline as is')
  })

  it('refuses unknown escapes and empty values with a usage error', () => {
    assert.throws(
      () => parseEscapes('\\q', '--delimiter'),
      (e: unknown) => e instanceof UsageError && /--delimiter/.test(e.message),
    )
    assert.throws(() => parseEscapes('\\x1', '--delimiter'), UsageError)
    assert.throws(
      () => parseEscapes('', '--key-separator'),
      (e: unknown) => e instanceof UsageError && /must not be empty/.test(e.message),
    )
  })
})

describe('splitKey', () => {
  it('splits at the first separator; no separator (or none given) means a null key', () => {
    assert.deepEqual(splitKey(Buffer.from('k:v:w'), Buffer.from(':')), { key: Buffer.from('k'), value: Buffer.from('v:w') })
    assert.deepEqual(splitKey(Buffer.from(':v'), Buffer.from(':')), { key: Buffer.from(''), value: Buffer.from('v') })
    assert.deepEqual(splitKey(Buffer.from('k::v'), Buffer.from('::')), { key: Buffer.from('k'), value: Buffer.from('v') })
    assert.deepEqual(splitKey(Buffer.from('plain'), Buffer.from(':')), { key: null, value: Buffer.from('plain') })
    assert.deepEqual(splitKey(Buffer.from('k:v'), null), { key: null, value: Buffer.from('k:v') })
  })
})

describe('progress and summary lines', () => {
  it('formats sizes in binary units', () => {
    assert.equal(formatBytes(999), '999 B')
    assert.equal(formatBytes(1536), '1.50 KB')
    assert.equal(formatBytes(5 * 1024 * 1024), '5.00 MB')
    assert.equal(formatBytes(300 * 1024 * 1024 * 1024), '300.0 GB')
  })

  it('draws a bar with the percentage when the size is known, counts otherwise', () => {
    const c = { read: 1200, inputBytes: 1024 * 1024, acked: 1000 }
    const bar = barLine(c, 4 * 1024 * 1024, 2000)
    assert.equal(bar, `[#####${'.'.repeat(15)}]  25%  1200 records  1000 acked  1.00 MB/4.00 MB  600 records/s`)
    assert.equal(barLine(c, undefined, 2000), 'produce: 1200 records  1000 acked  1.00 MB  600 records/s')
    assert.equal(
      plainLine(c, 4 * 1024 * 1024, 2000),
      'produce: 1200 records read, 1000 acknowledged, 1.00 MB, 600 records/s, 25% of 4.00 MB',
    )
  })

  it('draws the bar in place at once for a sized input, after a screenful otherwise, and erases it at the end', () => {
    let out = ''
    const target = { stderr: (t: string) => (out += t) }
    let t = 0
    const counts = { read: 10, inputBytes: 512, acked: 5 }
    const sized = new ProgressLine(
      target,
      'bar',
      1024,
      () => counts,
      () => (t += 1000),
    )
    sized.tick()
    assert.equal(out, `\r[##########${'.'.repeat(10)}]  50%  10 records  5 acked  512 B/1.00 KB  10 records/s\x1b[K`)
    sized.finish()
    assert.ok(out.endsWith('\r\x1b[K'))

    out = ''
    const unsized = new ProgressLine(
      target,
      'bar',
      undefined,
      () => counts,
      () => (t += 1000),
    )
    unsized.tick()
    assert.equal(out, '', 'a few records from a pipe: no bar')
    counts.read = SCREENFUL_RECORDS + 1
    unsized.tick()
    assert.equal(out, '\rproduce: 51 records  5 acked  512 B  26 records/s\x1b[K', '51 records in 2 s')
    unsized.finish()

    out = ''
    const plain = new ProgressLine(
      target,
      'plain',
      undefined,
      () => counts,
      () => (t += 1000),
    )
    plain.tick()
    plain.finish()
    assert.equal(out, 'produce: 51 records read, 5 acknowledged, 512 B, 51 records/s\n', 'plain lines are never erased')
    out = ''
    new ProgressLine(target, 'off', 1024, () => counts).tick()
    assert.equal(out, '')
  })

  it('summarises records, bytes, partitions, time and rate, and says when interrupted or failed', () => {
    const base = {
      topic: 't',
      records: 3,
      bytes: 42,
      partitions: [0, 2],
      elapsedMs: 1500,
      recordsPerSec: 2,
      mbPerSec: 0,
      read: 3,
      failed: 0,
      interrupted: false,
      acks: -1,
    }
    assert.equal(summaryText(base, 'line'), "produced 3 records (42 B) to 't' partitions 0, 2 in 1.50 s (2 records/s, 0 MB/s)\n")
    const text = summaryText({ ...base, read: 5, failed: 2, interrupted: true }, 'line')
    assert.match(text, /interrupted: stopped reading after line 5; every record read was sent/)
    assert.match(text, /2 of 5 records were not stored/)
    assert.match(summaryText({ ...base, acks: 0 }, 'line'), /^sent \(acks=0, not acknowledged\) 3 records/)
  })
})
