// A `tributary start` for the chaos runs' disk faults: the same command line (src/cli/program.ts)
// and the same broker start (startBrokerFromConfig, as src/cli/main.ts runs it), but with a
// FaultyFs (faulty-fs.ts) over the disk, so `tributary start` itself never changes for users.
//
//   TRIBUTARY_DISK_FAULT_FILE=/tmp/x node dist/test/chaos/faulty-broker-main.js start --override …
//
// Control: the nemesis writes the mode ('enospc', 'eio', 'slow-fsync' or 'none') to the file named
// by TRIBUTARY_DISK_FAULT_FILE (temp file + rename, so it is never read half-written) and sends
// SIGUSR2; the broker reads the file at start and at every SIGUSR2. A signal plus a file is the
// simplest channel that cannot lose a switch: the state lives in the file, so signals that arrive
// together (the kernel merges them) or before a restart still leave the broker in the last mode
// written, and it needs no socket or IPC channel that a kill -9, SIGSTOP or partition of the
// harness would have to account for. (SIGUSR1 is Node's inspector signal; SIGUSR2 is free.)
// Each switch is logged to stderr as `disk fault mode: <mode>`, which the harness can wait for.
// With TRIBUTARY_POWER_JOURNAL=FILE the FaultyFs records in FILE what a power cut would keep of the
// files it writes (power-journal.ts), started afresh at each start.
import { readFileSync } from 'node:fs'
import { startBrokerFromConfig } from '../../src/broker/start.js'
import { processCliDeps } from '../../src/cli/process-deps.js'
import { runCli } from '../../src/cli/program.js'
import { nodeFs } from '../../src/storage/fs.js'
import { DISK_FAULT_FILE_ENV, FaultyFs, parseDiskMode } from './faulty-fs.js'
import { POWER_JOURNAL_ENV, PowerJournal } from './power-journal.js'

const controlFile = process.env[DISK_FAULT_FILE_ENV]
const journalFile = process.env[POWER_JOURNAL_ENV]
const fs = new FaultyFs(nodeFs, undefined, journalFile ? new PowerJournal(journalFile) : undefined)

function readMode(): void {
  let text = ''
  try {
    if (controlFile) text = readFileSync(controlFile, 'utf8')
  } catch {
    // no file yet: no fault
  }
  const mode = parseDiskMode(text)
  if (mode !== fs.mode) process.stderr.write(`disk fault mode: ${mode}\n`)
  fs.mode = mode
}

readMode()
process.on('SIGUSR2', readMode)

await runCli(
  process.argv,
  processCliDeps((opts) => startBrokerFromConfig({ ...opts, fs })),
)
