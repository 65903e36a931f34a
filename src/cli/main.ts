#!/usr/bin/env node
// The `tributary` executable: wires the real process into the command line (program.ts).
import { readFileSync } from 'node:fs'
import { startBroker } from '../broker/start.js'
import { runCli } from './program.js'

// dist/src/cli/main.js → the package root's package.json.
const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }

await runCli(process.argv, {
  startBroker,
  version: pkg.version,
  onSignal: (signal, handler) => process.on(signal, handler),
  exit: (code) => process.exit(code),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
})
