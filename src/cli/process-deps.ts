// The real process as the command line's dependencies (deps.ts's CliDeps): its signals, exit,
// output streams and stdin. src/cli/main.ts runs `tributary` with them; a test's own entry point
// can run the same command line with another broker start.
import { VERSION } from '../config/version.js'
import type { CliDeps } from './deps.js'

export function processCliDeps(startBroker: CliDeps['startBroker']): CliDeps {
  return {
    startBroker,
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
  }
}
