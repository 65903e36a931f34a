// CrashFs (src/storage/crash-fs.ts): what a crash keeps — fsync'd file contents, directory
// entries whose directory was fsync'd, renames atomically — and what it loses; the seeded mode
// that lets a prefix of the pending changes through; and the remount (dead handles).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { CrashFs } from '../../../src/storage/crash-fs.js'
import type { Fs } from '../../../src/storage/fs.js'

async function put(fs: Fs, path: string, text: string, sync: boolean): Promise<void> {
  const fh = await fs.open(path, 'w')
  await fh.write(Buffer.from(text), 0)
  if (sync) await fh.sync()
  await fh.close()
}

async function text(fs: Fs, path: string): Promise<string | null> {
  return (await fs.stat(path)) === null ? null : (await fs.readFile(path)).toString()
}

/** A disk with /d durable in the root. */
async function disk(): Promise<CrashFs> {
  const fs = new CrashFs()
  await fs.mkdir('/d')
  await fs.syncDir('/')
  return fs
}

describe('CrashFs', () => {
  test('file data is durable after fsync, not before; later writes are lost', async () => {
    const fs = await disk()
    await put(fs, '/d/f', 'first', true)
    await fs.syncDir('/d')
    const fh = await fs.open('/d/f', 'r+')
    await fh.write(Buffer.from('XY'), 5)
    assert.equal(await text(fs, '/d/f'), 'firstXY')
    assert.ok(fs.pendingChanges() > 0)
    fs.crash()
    assert.equal(await text(fs, '/d/f'), 'first')
    assert.equal(fs.pendingChanges(), 0)
  })

  test('a new name needs an fsync of its directory, whatever was fsync’d of the file', async () => {
    const fs = await disk()
    await put(fs, '/d/synced-data', 'a', true)
    await put(fs, '/d/named', 'b', false)
    fs.crash()
    assert.deepEqual(await fs.readdir('/d'), [])

    await put(fs, '/d/synced-data', 'a', true)
    await put(fs, '/d/named', 'b', false)
    await fs.syncDir('/d')
    fs.crash()
    assert.equal(await text(fs, '/d/synced-data'), 'a')
    assert.equal(await text(fs, '/d/named'), '', 'the name survives, the unsynced data does not')
  })

  test('a directory made by mkdir is lost without an fsync of its parent', async () => {
    const fs = await disk()
    await fs.mkdir('/d/p/q')
    await fs.syncDir('/d/p')
    fs.crash()
    assert.equal(await fs.stat('/d/p'), null)
    await fs.mkdir('/d/p/q')
    await fs.syncDir('/d')
    fs.crash()
    assert.deepEqual(await fs.readdir('/d/p'), [], 'q was created in p, whose fsync never came')
  })

  test('rename is atomic and durable after the directory fsync: old or new, never a mix', async () => {
    const fs = await disk()
    await put(fs, '/d/ckpt', 'old', true)
    await fs.syncDir('/d')
    await put(fs, '/d/ckpt.tmp', 'new', true)
    await fs.rename('/d/ckpt.tmp', '/d/ckpt')
    fs.crash()
    assert.equal(await text(fs, '/d/ckpt'), 'old')
    assert.deepEqual(await fs.readdir('/d'), ['ckpt'], 'the temp file was never durable')

    await put(fs, '/d/ckpt.tmp', 'new', true)
    await fs.rename('/d/ckpt.tmp', '/d/ckpt')
    await fs.syncDir('/d')
    fs.crash()
    assert.equal(await text(fs, '/d/ckpt'), 'new')
    assert.deepEqual(await fs.readdir('/d'), ['ckpt'])

    // With every prefix of the pending changes possible, the rename still lands whole.
    for (let seed = 1; seed <= 40; seed++) {
      const g = await disk()
      await put(g, '/d/ckpt', 'old', true)
      await put(g, '/d/ckpt.tmp', 'new', true)
      await g.syncDir('/d')
      await g.rename('/d/ckpt.tmp', '/d/ckpt')
      g.crash(seed)
      const names = await g.readdir('/d')
      const state = `${names.join(',')}=${await text(g, '/d/ckpt')}`
      assert.ok(state === 'ckpt,ckpt.tmp=old' || state === 'ckpt=new', `seed ${seed}: ${state}`)
    }
  })

  test('an unlink without a directory fsync is undone; a file held open keeps its durable data', async () => {
    const fs = await disk()
    await put(fs, '/d/f', 'kept', true)
    await fs.syncDir('/d')
    await fs.unlink('/d/f')
    fs.crash()
    assert.equal(await text(fs, '/d/f'), 'kept')
    await fs.unlink('/d/f')
    await fs.syncDir('/d')
    fs.crash()
    assert.equal(await fs.stat('/d/f'), null)
  })

  test('a truncation is metadata made durable by fsync; so is the truncation of an open with w', async () => {
    const fs = await disk()
    await put(fs, '/d/f', '0123456789', true)
    await fs.syncDir('/d')
    const fh = await fs.open('/d/f', 'r+')
    await fh.truncate(4)
    fs.crash()
    assert.equal(await text(fs, '/d/f'), '0123456789')
    const again = await fs.open('/d/f', 'r+')
    await again.truncate(4)
    await again.sync()
    fs.crash()
    assert.equal(await text(fs, '/d/f'), '0123')
    await fs.open('/d/f', 'w')
    fs.crash()
    assert.equal(await text(fs, '/d/f'), '0123', "open('w') truncated without an fsync")
  })

  test('an fsync through one handle makes the writes of another durable (it is the inode’s)', async () => {
    const fs = await disk()
    const a = await fs.open('/d/f', 'w')
    await fs.syncDir('/d')
    const b = await fs.open('/d/f', 'r')
    await a.write(Buffer.from('abc'), 0)
    await b.sync()
    fs.crash()
    assert.equal(await text(fs, '/d/f'), 'abc')
  })

  test('after a crash every old handle fails with EBADF and the disk counts as durable', async () => {
    const fs = await disk()
    const fh = await fs.open('/d/f', 'w')
    await fs.syncDir('/d')
    assert.equal(fs.usage().openHandles, 1)
    fs.crash()
    assert.equal(fs.crashes, 1)
    assert.equal(fs.usage().openHandles, 0)
    const ebadf = (err: unknown) => (err as NodeJS.ErrnoException).code === 'EBADF'
    await assert.rejects(fh.write(Buffer.from('x'), 0), ebadf)
    await assert.rejects(fh.read(Buffer.alloc(1), 0, 1, 0), ebadf)
    await assert.rejects(fh.sync(), ebadf)
    await assert.rejects(fh.size(), ebadf)
    await fh.close()
    assert.equal(fs.usage().openHandles, 0, 'closing a dead handle does not count')
    fs.crash()
    assert.deepEqual(await fs.readdir('/d'), ['f'], 'what a remount found is durable')
  })

  test('crash(seed) keeps an in-order prefix of the unsynced writes, the last one maybe torn; same seed, same disk', async () => {
    const lengths = new Set<number>()
    let torn = 0
    for (let seed = 1; seed <= 200; seed++) {
      const run = async () => {
        const fs = await disk()
        const fh = await fs.open('/d/log', 'a')
        await fs.syncDir('/d')
        await fh.write(Buffer.from('durable|'), null)
        await fh.sync()
        for (let i = 0; i < 5; i++) await fh.write(Buffer.from(`chunk${i}|`), null)
        fs.crash(seed)
        return (await fs.readFile('/d/log')).toString()
      }
      const got = await run()
      assert.equal(await run(), got, `seed ${seed} replays`)
      const current = `durable|${[0, 1, 2, 3, 4].map((i) => `chunk${i}|`).join('')}`
      assert.ok(got.startsWith('durable|'), `seed ${seed}: the durable part is kept: ${got}`)
      assert.ok(current.startsWith(got), `seed ${seed}: a prefix of what was written: ${got}`)
      if (!got.endsWith('|')) torn++
      lengths.add(got.length)
    }
    assert.ok(lengths.has(8) && lengths.has(8 + 5 * 7), 'nothing and everything both occur')
    assert.ok(torn > 0, 'some crashes tear a write')
  })
})
