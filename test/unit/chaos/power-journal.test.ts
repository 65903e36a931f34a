// The power cut of the chaos nemesis (test/chaos/power-journal.ts): a FaultyFs with a journal over
// the real disk, the writes a broker makes (appends, fsyncs, a new file, a rename, an unlink), then
// cutPower(): every file is back to what it had at its last fsync — or at the start, or nothing for
// a file made since — and nothing that was fsynced is lost.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { nodeFs } from '../../../src/storage/fs.js'
import { FaultyFs } from '../../chaos/faulty-fs.js'
import { cutPower, durableSizes, PowerJournal } from '../../chaos/power-journal.js'

test('a power cut keeps what was fsynced and what was there at the start, and loses the rest', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-power-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const journal = join(dir, 'journal')
  const old = join(dir, 'old.log')
  writeFileSync(old, 'before-start|')
  const fs = new FaultyFs(nodeFs, 0, new PowerJournal(journal))

  // A file from before the start: appended to, fsynced, appended to again.
  const a = await fs.open(old, 'a')
  await a.write(Buffer.from('synced|'), null)
  await a.sync()
  await a.write(Buffer.from('lost'), null)
  await a.close()
  // A file made now, never fsynced; another made now and fsynced, then renamed; one unlinked.
  const fresh = await fs.open(join(dir, 'fresh.log'), 'w')
  await fresh.write(Buffer.from('never synced'), 0)
  await fresh.close()
  const tmp = await fs.open(join(dir, 'ckpt.tmp'), 'w')
  await tmp.write(Buffer.from('checkpoint'), 0)
  await tmp.sync()
  await tmp.write(Buffer.from('+tail'), 10)
  await tmp.close()
  await fs.rename(join(dir, 'ckpt.tmp'), join(dir, 'ckpt'))
  const gone = await fs.open(join(dir, 'gone.log'), 'w')
  await gone.close()
  await fs.unlink(join(dir, 'gone.log'))
  // Untouched by the broker: kept whole.
  writeFileSync(join(dir, 'other'), "not the broker's")

  const sizes = durableSizes(readFileSync(journal, 'utf8'))
  assert.deepEqual(
    [...sizes].sort(),
    [
      [join(dir, 'ckpt'), 10],
      [join(dir, 'fresh.log'), 0],
      [old, 'before-start|synced|'.length],
    ].sort(),
  )
  const cut = cutPower(journal)
  assert.deepEqual(cut, { files: 3, bytes: 'lost'.length + 'never synced'.length + '+tail'.length })
  assert.equal(readFileSync(old, 'utf8'), 'before-start|synced|')
  assert.equal(readFileSync(join(dir, 'fresh.log'), 'utf8'), '')
  assert.equal(readFileSync(join(dir, 'ckpt'), 'utf8'), 'checkpoint')
  assert.equal(readFileSync(join(dir, 'other'), 'utf8'), "not the broker's")
  // A second cut loses nothing more; a new incarnation starts a new journal.
  assert.deepEqual(cutPower(journal), { files: 0, bytes: 0 })
  new PowerJournal(journal)
  assert.equal(readFileSync(journal, 'utf8'), '')
})
