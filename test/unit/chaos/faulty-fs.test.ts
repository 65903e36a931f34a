// The chaos nemesis's faulty disk (test/chaos/faulty-fs.ts) over a MemoryFs: 'none' passes every
// call through; 'enospc' refuses what needs space (writes, creating files and directories,
// renames) with ENOSPC and lets truncate, unlink, fsync and reads through; 'eio' refuses those and
// truncates, unlinks and fsyncs too with EIO; 'eio-read' refuses reads with EIO; 'slow-fsync'
// delays fsyncs and refuses nothing; and
// switching back to 'none' makes the same handles work again. The control file's text parses to
// a mode, anything else to 'none'.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import { FaultyFs, parseDiskMode } from '../../chaos/faulty-fs.js'

const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p
    return 'ok'
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err)
  }
}

async function setUp() {
  const fs = new FaultyFs(new MemoryFs(), 30)
  await fs.mkdir('/d')
  const fh = await fs.open('/d/f', 'w+')
  await fh.write(Buffer.from('hello'), 0)
  return { fs, fh }
}

describe('FaultyFs', () => {
  it("'none' passes everything through", async () => {
    const { fs, fh } = await setUp()
    assert.equal(await code(fh.write(Buffer.from('!'), 5)), 'ok')
    assert.equal(await code(fh.sync()), 'ok')
    assert.equal(await code(fs.rename('/d/f', '/d/g')), 'ok')
    assert.deepEqual(fs.counts, { refused: 0, delayed: 0 })
  })

  it("'enospc' refuses what needs space, and 'none' lets the same handle write again", async () => {
    const { fs, fh } = await setUp()
    fs.mode = 'enospc'
    assert.equal(await code(fh.write(Buffer.from('x'), 5)), 'ENOSPC')
    assert.equal(await code(fh.writev([Buffer.from('x')], 5)), 'ENOSPC')
    assert.equal(await code(fs.open('/d/new', 'w')), 'ENOSPC')
    assert.equal(await code(fs.mkdir('/e')), 'ENOSPC')
    assert.equal(await code(fs.rename('/d/f', '/d/g')), 'ENOSPC')
    assert.equal(await code(fh.truncate(3)), 'ok')
    assert.equal(await code(fh.sync()), 'ok')
    assert.equal(await code(fs.syncDir('/d')), 'ok')
    const buf = Buffer.alloc(3)
    assert.equal(await fh.read(buf, 0, 3, 0), 3)
    assert.equal(buf.toString(), 'hel')
    const err = await fh.write(Buffer.from('x'), 3).catch((e: NodeJS.ErrnoException) => e)
    assert.ok(err instanceof Error)
    assert.equal((err as NodeJS.ErrnoException).errno, -28)
    assert.equal((err as NodeJS.ErrnoException).syscall, 'write')
    fs.mode = 'none'
    await fh.write(Buffer.from('p!'), 3)
    const all = Buffer.alloc(5)
    await fh.read(all, 0, 5, 0)
    assert.equal(all.toString(), 'help!')
    assert.equal(fs.counts.refused, 6)
  })

  it("'eio' refuses writes, truncates, unlinks and fsyncs", async () => {
    const { fs, fh } = await setUp()
    fs.mode = 'eio'
    assert.equal(await code(fh.write(Buffer.from('x'), 5)), 'EIO')
    assert.equal(await code(fh.truncate(1)), 'EIO')
    assert.equal(await code(fh.sync()), 'EIO')
    assert.equal(await code(fs.syncDir('/d')), 'EIO')
    assert.equal(await code(fs.unlink('/d/f')), 'EIO')
    assert.equal(await code(fs.open('/d/f', 'r')), 'ok')
    assert.equal((await fs.readFile('/d/f')).toString(), 'hello')
    fs.mode = 'none'
    assert.equal(await code(fh.sync()), 'ok')
  })

  it("'slow-fsync' delays every fsync and refuses nothing", async () => {
    const { fs, fh } = await setUp()
    fs.mode = 'slow-fsync'
    assert.equal(await code(fh.write(Buffer.from('x'), 5)), 'ok')
    assert.equal(await code(fh.sync()), 'ok')
    assert.equal(await code(fs.syncDir('/d')), 'ok')
    assert.deepEqual(fs.counts, { refused: 0, delayed: 2 })
    fs.mode = 'none'
    await fh.sync()
    assert.equal(fs.counts.delayed, 2)
  })

  it("'eio-read' refuses reads with EIO and lets writes through", async () => {
    const { fs, fh } = await setUp()
    fs.mode = 'eio-read'
    assert.equal(await code(fh.read(Buffer.alloc(5), 0, 5, 0)), 'EIO')
    assert.equal(await code(fs.readFile('/d/f')), 'EIO')
    assert.equal(await code(fh.write(Buffer.from('!'), 5)), 'ok')
    assert.equal(await code(fh.sync()), 'ok')
    assert.deepEqual(fs.counts, { refused: 2, delayed: 0 })
    fs.mode = 'none'
    const buf = Buffer.alloc(6)
    assert.equal(await fh.read(buf, 0, 6, 0), 6)
    assert.equal(buf.toString(), 'hello!')
  })

  it('parses the control file', () => {
    assert.equal(parseDiskMode('eio-read'), 'eio-read')
    assert.equal(parseDiskMode('eio\n'), 'eio')
    assert.equal(parseDiskMode(' enospc '), 'enospc')
    assert.equal(parseDiskMode('slow-fsync'), 'slow-fsync')
    assert.equal(parseDiskMode('none'), 'none')
    assert.equal(parseDiskMode(''), 'none')
    assert.equal(parseDiskMode('eio-ish'), 'none')
  })
})
