#!/usr/bin/env node
// The `tributary` executable: wires the real process into the command line (program.ts).
import { VERSION } from '../config/version.js'
import { runCli } from './program.js'

await runCli(process.argv, {
  // Loaded only by `tributary start`: the client commands start faster without the broker's code.
  startBroker: async (opts) => (await import('../broker/start.js')).startBrokerFromConfig(opts),
  version: VERSION,
  onSignal: (signal, handler) => process.on(signal, handler),
  // Output to a pipe is written asynchronously: exit only once what was written has gone out, or
  // `tributary consume … > file` would lose its tail.
  exit: (code) => {
    process.exitCode = code
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)))
  },
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: process.stderr.isTTY === true,
  stdin: process.stdin,
})
