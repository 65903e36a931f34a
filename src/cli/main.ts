#!/usr/bin/env node
// The `tributary` executable: wires the real process into the command line (program.ts).
import { processCliDeps } from './process-deps.js'
import { runCli } from './program.js'

await runCli(
  process.argv,
  // Loaded only by `tributary start`: the client commands start faster without the broker's code.
  processCliDeps(async (opts) => (await import('../broker/start.js')).startBrokerFromConfig(opts)),
)
