// The Fs contract, checked against both implementations: nodeFs on a temp dir (the reference: what
// Linux does) and MemoryFs. Whatever the storage layer may rely on must behave the same on both,
// so a broker with storage: 'memory' behaves as one on disk. Then what only MemoryFs has: growth,
// usage accounting, clear(), and the storage layer running on it.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { DIRECT_IO_MAX_BYTES, type FileHandle, type Fs, nodeFs } from '../../../src/storage/fs.js'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { makeBatch, produce } from './helpers.js'

type TestLike = { after(fn: () => void | Promise<void>): void }

interface Subject {
  name: string
  /** A fresh, empty root directory on a file system of this kind. */
  root(t: TestLike): { fs: Fs; dir: string }
}

const subjects: Subject[] = [
  {
    name: 'nodeFs',
    root(t) {
      const dir = mkdtempSync(join(tmpdir(), 'tributary-fs-contract-'))
      t.after(() => rmSync(dir, { recursive: true, force: true }))
      return { fs: nodeFs, dir }
    },
  },
  {
    name: 'MemoryFs',
    root: () => ({ fs: new MemoryFs(), dir: '/data' }),
  },
]

function code(expected: string) {
  return (err: unknown) => {
    assert.equal((err as NodeJS.ErrnoException).code, expected, String(err))
    return true
  }
}

async function readAll(fh: FileHandle, length: number, position = 0): Promise<Buffer> {
  const buf = Buffer.alloc(length)
  const n = await fh.read(buf, 0, length, position)
  return buf.subarray(0, n)
}

async function writeFile(fs: Fs, path: string, text: string): Promise<void> {
  const fh = await fs.open(path, 'w')
  try {
    await fh.write(Buffer.from(text), 0)
  } finally {
    await fh.close()
  }
}

for (const subject of subjects) {
  describe(`Fs contract: ${subject.name}`, () => {
    async function setup(t: TestLike) {
      const { fs, dir } = subject.root(t)
      await fs.mkdir(dir)
      return { fs, dir }
    }

    test('r and r+ need the file; w, w+, a and a+ create it; a missing directory is ENOENT', async (t) => {
      const { fs, dir } = await setup(t)
      await assert.rejects(fs.open(`${dir}/none`, 'r'), code('ENOENT'))
      await assert.rejects(fs.open(`${dir}/none`, 'r+'), code('ENOENT'))
      await assert.rejects(fs.open(`${dir}/no-dir/f`, 'w'), code('ENOENT'))
      for (const mode of ['w', 'w+', 'a', 'a+'] as const) {
        const fh = await fs.open(`${dir}/${mode}`, mode)
        assert.equal(await fh.size(), 0)
        await fh.close()
        assert.deepEqual(await fs.stat(`${dir}/${mode}`).then((s) => s && { size: s.size, isDirectory: s.isDirectory }), {
          size: 0,
          isDirectory: false,
        })
      }
      assert.deepEqual((await fs.readdir(dir)).sort(), ['a', 'a+', 'w', 'w+'])
    })

    test('the error carries code, syscall and path as Node fs errors do', async (t) => {
      const { fs, dir } = await setup(t)
      const err = await fs.open(`${dir}/none`, 'r').then(
        () => assert.fail('opened a missing file'),
        (e: NodeJS.ErrnoException) => e,
      )
      assert.ok(err instanceof Error)
      assert.equal(err.code, 'ENOENT')
      assert.equal(err.syscall, 'open')
      assert.equal(err.path, `${dir}/none`)
      assert.equal(typeof err.errno, 'number')
      assert.match(err.message, /^ENOENT: no such file or directory, open '.*\/none'$/)
    })

    test('w and w+ truncate an existing file; r+ keeps it', async (t) => {
      const { fs, dir } = await setup(t)
      await writeFile(fs, `${dir}/f`, 'hello world')
      const rp = await fs.open(`${dir}/f`, 'r+')
      assert.equal(await rp.size(), 11)
      await rp.write(Buffer.from('J'), 0)
      assert.equal((await readAll(rp, 64)).toString(), 'Jello world')
      await rp.close()
      const w = await fs.open(`${dir}/f`, 'w+')
      assert.equal(await w.size(), 0)
      assert.equal((await readAll(w, 64)).length, 0)
      await w.close()
      assert.equal((await fs.readFile(`${dir}/f`)).length, 0)
    })

    test('reads are positional: partial at the end, 0 past it, into the given buffer offset', async (t) => {
      const { fs, dir } = await setup(t)
      await writeFile(fs, `${dir}/f`, '0123456789')
      const fh = await fs.open(`${dir}/f`, 'r')
      const buf = Buffer.alloc(8, '.')
      assert.equal(await fh.read(buf, 2, 6, 7), 3)
      assert.equal(buf.toString(), '..789...')
      assert.equal(await fh.read(buf, 0, 4, 10), 0)
      assert.equal(await fh.read(buf, 0, 4, 1000), 0)
      assert.equal((await readAll(fh, 4, 3)).toString(), '3456')
      await fh.close()
    })

    test('a write past the end leaves a hole of zeros', async (t) => {
      const { fs, dir } = await setup(t)
      const fh = await fs.open(`${dir}/f`, 'w+')
      await fh.write(Buffer.from('ab'), 0)
      await fh.write(Buffer.from('cd'), 6)
      assert.equal(await fh.size(), 8)
      assert.deepEqual([...(await readAll(fh, 16))], [97, 98, 0, 0, 0, 0, 99, 100])
      await fh.close()
    })

    test('writes at position null follow the handle position; positional writes do not move it', async (t) => {
      const { fs, dir } = await setup(t)
      const fh = await fs.open(`${dir}/f`, 'w+')
      await fh.write(Buffer.from('one,'), null)
      await fh.write(Buffer.from('XY'), 20)
      await fh.write(Buffer.from('two,'), null)
      await fh.writev([Buffer.from('thr'), Buffer.from('ee')], null)
      assert.equal((await readAll(fh, 13)).toString(), 'one,two,three')
      assert.equal(await fh.size(), 22)
      await fh.close()
    })

    test('writev writes its buffers contiguously at the position', async (t) => {
      const { fs, dir } = await setup(t)
      const fh = await fs.open(`${dir}/f`, 'w+')
      await fh.write(Buffer.from('----------'), 0)
      await fh.writev([Buffer.from('ab'), Buffer.alloc(0), Buffer.from('cde'), Buffer.from('f')], 2)
      assert.equal((await readAll(fh, 64)).toString(), '--abcdef--')
      await fh.writev([Buffer.from('X')], 9)
      assert.equal((await readAll(fh, 64)).toString(), '--abcdef-X')
      await fh.close()
    })

    test('reads and writes on either side of DIRECT_IO_MAX_BYTES (direct calls below, the thread pool above) agree', async (t) => {
      const { fs, dir } = await setup(t)
      const big = DIRECT_IO_MAX_BYTES + 4097
      const fh = await fs.open(`${dir}/f`, 'w+')
      const a = randomBytes(big)
      const b = randomBytes(100)
      const c = randomBytes(DIRECT_IO_MAX_BYTES)
      await fh.write(a, 0) // large, positional
      await fh.write(b, big) // small, positional
      await fh.writev([c, b], big + 100) // large writev
      await fh.writev([b, b], big + 200 + DIRECT_IO_MAX_BYTES) // small writev
      const total = big + 400 + DIRECT_IO_MAX_BYTES
      assert.equal(await fh.size(), total)
      const whole = Buffer.alloc(total)
      assert.equal(await fh.read(whole, 0, total, 0), total) // large read
      assert.deepEqual(whole, Buffer.concat([a, b, c, b, b, b]))
      const small = Buffer.alloc(64)
      assert.equal(await fh.read(small, 0, 64, big - 32), 64) // small read across the first two writes
      assert.deepEqual(small, Buffer.concat([a.subarray(big - 32), b.subarray(0, 32)]))
      await fh.close()
      const r = await fs.open(`${dir}/f`, 'r')
      await assert.rejects(r.write(a, 0), code('EBADF'))
      await assert.rejects(r.writev([a, b], 0), code('EBADF'))
      await r.close()
      const w = await fs.open(`${dir}/f`, 'a')
      await assert.rejects(w.read(Buffer.alloc(big), 0, big, 0), code('EBADF'))
      await w.write(a, null) // large append at the end
      assert.equal(await w.size(), total + big)
      await w.close()
    })

    test('a and a+ always write at the end, whatever the position; a+ can read', async (t) => {
      const { fs, dir } = await setup(t)
      await writeFile(fs, `${dir}/f`, 'abc')
      const a = await fs.open(`${dir}/f`, 'a')
      await a.write(Buffer.from('def'), 0)
      await a.writev([Buffer.from('g'), Buffer.from('h')], 1)
      await a.write(Buffer.from('i'), null)
      await a.close()
      assert.equal((await fs.readFile(`${dir}/f`)).toString(), 'abcdefghi')
      const ap = await fs.open(`${dir}/f`, 'a+')
      await ap.write(Buffer.from('j'), 0)
      assert.equal((await readAll(ap, 64)).toString(), 'abcdefghij')
      await ap.close()
    })

    test('a handle does only what its mode allows (EBADF)', async (t) => {
      const { fs, dir } = await setup(t)
      await writeFile(fs, `${dir}/f`, 'abc')
      const r = await fs.open(`${dir}/f`, 'r')
      await assert.rejects(r.write(Buffer.from('x'), 0), code('EBADF'))
      await assert.rejects(r.writev([Buffer.from('x'), Buffer.from('y')], 0), code('EBADF'))
      await r.close()
      for (const mode of ['w', 'a'] as const) {
        const fh = await fs.open(`${dir}/f`, mode)
        await assert.rejects(fh.read(Buffer.alloc(4), 0, 4, 0), code('EBADF'))
        await fh.close()
      }
    })

    test('truncate shrinks, and extending again reads zeros, never the old bytes', async (t) => {
      const { fs, dir } = await setup(t)
      const fh = await fs.open(`${dir}/f`, 'w+')
      await fh.write(Buffer.from('abcdefgh'), 0)
      await fh.truncate(3)
      assert.equal(await fh.size(), 3)
      assert.equal((await readAll(fh, 64)).toString(), 'abc')
      await fh.truncate(6)
      assert.deepEqual([...(await readAll(fh, 64))], [97, 98, 99, 0, 0, 0])
      await fh.write(Buffer.from('Z'), 7)
      assert.deepEqual([...(await readAll(fh, 64))], [97, 98, 99, 0, 0, 0, 0, 90])
      await fh.truncate(0)
      assert.equal(await fh.size(), 0)
      await fh.close()
      const r = await fs.open(`${dir}/f`, 'r')
      await assert.rejects(r.truncate(0), code('EINVAL'))
      await r.close()
    })

    test('an open handle keeps its file through rename and unlink', async (t) => {
      const { fs, dir } = await setup(t)
      const fh = await fs.open(`${dir}/a`, 'w+')
      await fh.write(Buffer.from('first'), 0)
      await fs.rename(`${dir}/a`, `${dir}/b`)
      await fh.write(Buffer.from('+more'), 5)
      assert.equal((await fs.readFile(`${dir}/b`)).toString(), 'first+more')
      await fs.unlink(`${dir}/b`)
      assert.equal(await fs.stat(`${dir}/b`), null)
      await fh.write(Buffer.from('!'), 10)
      assert.equal((await readAll(fh, 64)).toString(), 'first+more!')
      await fh.close()
      assert.deepEqual(await fs.readdir(dir), [])
    })

    test('rename replaces a file, and an empty directory by a directory', async (t) => {
      const { fs, dir } = await setup(t)
      await writeFile(fs, `${dir}/new.tmp`, 'new')
      await writeFile(fs, `${dir}/cur`, 'old')
      await fs.rename(`${dir}/new.tmp`, `${dir}/cur`)
      assert.equal((await fs.readFile(`${dir}/cur`)).toString(), 'new')
      assert.deepEqual(await fs.readdir(dir), ['cur'])
      await fs.rename(`${dir}/cur`, `${dir}/cur`)
      assert.equal((await fs.readFile(`${dir}/cur`)).toString(), 'new')

      await fs.mkdir(`${dir}/d1/sub`)
      await writeFile(fs, `${dir}/d1/sub/x`, 'x')
      await fs.mkdir(`${dir}/empty`)
      await fs.rename(`${dir}/d1`, `${dir}/empty`)
      assert.equal((await fs.readFile(`${dir}/empty/sub/x`)).toString(), 'x')
      assert.equal(await fs.stat(`${dir}/d1`), null)
    })

    test('rename refuses what POSIX refuses', async (t) => {
      const { fs, dir } = await setup(t)
      await fs.mkdir(`${dir}/d/sub`)
      await fs.mkdir(`${dir}/full/inner`)
      await writeFile(fs, `${dir}/f`, 'f')
      await assert.rejects(fs.rename(`${dir}/none`, `${dir}/x`), code('ENOENT'))
      await assert.rejects(fs.rename(`${dir}/f`, `${dir}/no-dir/f`), code('ENOENT'))
      await assert.rejects(fs.rename(`${dir}/d`, `${dir}/full`), code('ENOTEMPTY'))
      await assert.rejects(fs.rename(`${dir}/f`, `${dir}/d`), code('EISDIR'))
      await assert.rejects(fs.rename(`${dir}/d`, `${dir}/f`), code('ENOTDIR'))
      await assert.rejects(fs.rename(`${dir}/d`, `${dir}/d/sub/d`), code('EINVAL'))
      assert.deepEqual(await fs.readdir(dir), ['d', 'f', 'full'])
    })

    test('unlink removes files only', async (t) => {
      const { fs, dir } = await setup(t)
      await fs.mkdir(`${dir}/d`)
      await assert.rejects(fs.unlink(`${dir}/none`), code('ENOENT'))
      await assert.rejects(fs.unlink(`${dir}/d`), code('EISDIR'))
      await writeFile(fs, `${dir}/f`, 'f')
      await fs.unlink(`${dir}/f`)
      assert.deepEqual(await fs.readdir(dir), ['d'])
    })

    test('mkdir makes parents, accepts an existing directory, refuses a file in the way', async (t) => {
      const { fs, dir } = await setup(t)
      await fs.mkdir(`${dir}/a/b/c`)
      await fs.mkdir(`${dir}/a/b/c`)
      await fs.mkdir(`${dir}/a/b`)
      assert.equal((await fs.stat(`${dir}/a/b/c`))?.isDirectory, true)
      await writeFile(fs, `${dir}/a/file`, 'x')
      await assert.rejects(fs.mkdir(`${dir}/a/file`), code('EEXIST'))
      await assert.rejects(fs.mkdir(`${dir}/a/file/sub`), code('ENOTDIR'))
    })

    test('rmdir removes a whole tree, or a file, and accepts a missing path', async (t) => {
      const { fs, dir } = await setup(t)
      await fs.mkdir(`${dir}/t/x/y`)
      await writeFile(fs, `${dir}/t/x/y/f`, 'f')
      await writeFile(fs, `${dir}/t/g`, 'g')
      await writeFile(fs, `${dir}/keep`, 'k')
      await fs.rmdir(`${dir}/t`)
      await fs.rmdir(`${dir}/t`)
      await fs.rmdir(`${dir}/never-was`)
      await fs.rmdir(`${dir}/keep`)
      assert.deepEqual(await fs.readdir(dir), [])
    })

    test('readdir lists names; stat tells files from directories', async (t) => {
      const { fs, dir } = await setup(t)
      await fs.mkdir(`${dir}/events-0`)
      await writeFile(fs, `${dir}/meta.properties`, 'abc')
      await writeFile(fs, `${dir}/events-0/00000000000000000000.log`, '')
      assert.deepEqual((await fs.readdir(dir)).sort(), ['events-0', 'meta.properties'])
      assert.deepEqual(await fs.readdir(`${dir}/events-0`), ['00000000000000000000.log'])
      await assert.rejects(fs.readdir(`${dir}/none`), code('ENOENT'))
      await assert.rejects(fs.readdir(`${dir}/meta.properties`), code('ENOTDIR'))
      const f = await fs.stat(`${dir}/meta.properties`)
      assert.equal(f?.size, 3)
      assert.equal(f?.isDirectory, false)
      assert.ok(typeof f?.mtimeMs === 'number' && f.mtimeMs > 0)
      assert.equal((await fs.stat(`${dir}/events-0`))?.isDirectory, true)
      assert.equal(await fs.stat(`${dir}/none`), null)
      await assert.rejects(fs.stat(`${dir}/meta.properties/x`), code('ENOTDIR'))
    })

    test('readFile returns a copy of the contents', async (t) => {
      const { fs, dir } = await setup(t)
      await writeFile(fs, `${dir}/f`, 'abc')
      const buf = await fs.readFile(`${dir}/f`)
      assert.equal(buf.toString(), 'abc')
      buf[0] = 0x7a
      assert.equal((await fs.readFile(`${dir}/f`)).toString(), 'abc')
      await assert.rejects(fs.readFile(`${dir}/none`), code('ENOENT'))
      await assert.rejects(fs.readFile(dir), code('EISDIR'))
    })

    test('a directory opens read-only; reading it is EISDIR; syncDir needs it to exist', async (t) => {
      const { fs, dir } = await setup(t)
      const fh = await fs.open(dir, 'r')
      await assert.rejects(fh.read(Buffer.alloc(4), 0, 4, 0), code('EISDIR'))
      await fh.sync()
      await fh.close()
      await assert.rejects(fs.open(dir, 'r+'), code('EISDIR'))
      await assert.rejects(fs.open(dir, 'w'), code('EISDIR'))
      await fs.syncDir(dir)
      await assert.rejects(fs.syncDir(`${dir}/none`), code('ENOENT'))
    })

    test('the write → fsync → rename → fsync(dir) sequence of checkpoint files', async (t) => {
      const { fs, dir } = await setup(t)
      for (const text of ['0\n0\n', '0\n1\nevents 0 42\n']) {
        const fh = await fs.open(`${dir}/cp.tmp`, 'w')
        await fh.write(Buffer.from(text), 0)
        await fh.sync()
        await fh.close()
        await fs.rename(`${dir}/cp.tmp`, `${dir}/cp`)
        await fs.syncDir(dir)
      }
      assert.equal((await fs.readFile(`${dir}/cp`)).toString(), '0\n1\nevents 0 42\n')
      assert.deepEqual(await fs.readdir(dir), ['cp'])
    })
  })
}

describe('MemoryFs', () => {
  test('a file grows by appends, and every byte reads back', async () => {
    const fs = new MemoryFs()
    await fs.mkdir('/d')
    const fh = await fs.open('/d/big', 'w+')
    const chunk = Buffer.alloc(1000)
    let size = 0
    for (let i = 0; i < 5000; i++) {
      chunk.fill(i & 0xff)
      await fh.writev([chunk.subarray(0, 600), chunk.subarray(600)], size)
      size += chunk.length
    }
    assert.equal(await fh.size(), 5_000_000)
    const back = Buffer.alloc(1000)
    for (const i of [0, 1, 255, 256, 4096, 4999]) {
      assert.equal(await fh.read(back, 0, 1000, i * 1000), 1000)
      assert.ok(
        back.every((b) => b === (i & 0xff)),
        `chunk ${i}`,
      )
    }
    await fh.close()
    assert.equal(fs.usage().bytes, 5_000_000)
  })

  test('usage counts files, directories, bytes and open handles; clear() forgets everything', async () => {
    const fs = new MemoryFs()
    await fs.mkdir('/a/b')
    const f1 = await fs.open('/a/one', 'w')
    await f1.write(Buffer.from('12345'), 0)
    const f2 = await fs.open('/a/b/two', 'a+')
    await f2.write(Buffer.from('678'), null)
    assert.deepEqual(fs.usage(), { files: 2, directories: 2, bytes: 8, openHandles: 2 })
    await f1.close()
    await f1.close()
    assert.equal(fs.usage().openHandles, 1)
    await assert.rejects(f1.write(Buffer.from('x'), 0), code('EBADF'))
    fs.clear()
    assert.deepEqual(fs.usage(), { files: 0, directories: 0, bytes: 0, openHandles: 1 })
    await assert.rejects(fs.readdir('/a'), code('ENOENT'))
    await f2.close()
    assert.equal(fs.usage().openHandles, 0)
  })

  test('paths are normalised and relative ones start at the root', async () => {
    const fs = new MemoryFs()
    await fs.mkdir('memory:')
    await writeFile(fs, 'memory:/x', 'x')
    assert.equal((await fs.readFile('/memory:/x')).toString(), 'x')
    assert.equal((await fs.readFile('/memory://./y/../x')).toString(), 'x')
    assert.deepEqual(await fs.readdir('/'), ['memory:'])
  })

  test('two instances share nothing', async () => {
    const a = new MemoryFs()
    const b = new MemoryFs()
    await a.mkdir('/d')
    await writeFile(a, '/d/f', 'a')
    assert.equal(await b.stat('/d/f'), null)
  })

  test('mtimes come from the given clock', async () => {
    const clock = new ManualClock(1_000)
    const fs = new MemoryFs(() => clock.now())
    const fh = await fs.open('/f', 'w')
    clock.advance(500)
    await fh.write(Buffer.from('x'), 0)
    await fh.close()
    assert.equal((await fs.stat('/f'))?.mtimeMs, 1_500)
  })

  test('the storage layer runs on it: a log written, closed and reopened from memory', async () => {
    const fs = new MemoryFs()
    const clock = new ManualClock()
    const open = () =>
      LogManager.open({ fs, clock, logDir: 'memory:', config: { ...defaultLogConfig, segmentBytes: 2000 }, logger: silentLogger })
    const mgr = await open()
    const log = await mgr.create('events', 0, 'topic-id-1')
    for (let i = 0; i < 30; i++) await produce(log, [makeBatch(2, 1000 + i, `b${i}`)])
    assert.ok(log.segmentCount > 1, `${log.segmentCount} segments`)
    await mgr.close()
    assert.equal(fs.usage().openHandles, 0, 'close() closes every handle')
    assert.ok((await fs.readdir('memory:')).includes('.kafka_cleanshutdown'))

    const again = await open()
    const reopened = again.get('events', 0)
    assert.ok(reopened)
    assert.equal(reopened.logEndOffset, 60)
    const r = await reopened.read(41, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    const values: string[] = []
    for (const h of iterateBatches(r.records)) {
      for (const rec of iterateRecords(r.records, h.position)) values.push(rec.value!.toString())
    }
    assert.equal(values[0], 'b20-0')
    await again.close()
  })
})
