// What the `tributary` command needs from its surroundings: a broker to start, the process's
// streams, signals and exit. program.ts takes them, every command reads them; tests pass fakes.
import type { Logger, LogLevel } from '../util/logger.js'

/** What the CLI needs from startBroker (src/broker/start.ts). */
export interface CliStartOptions {
  configFile?: string
  overrides?: string[]
  logger?: Logger
}

export interface CliRunningBroker {
  bootstrap: string
  close(): Promise<void>
}

export interface CliDeps {
  startBroker(opts: CliStartOptions): Promise<CliRunningBroker>
  version: string
  /** Registers a signal handler (process.on). */
  onSignal(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void
  exit(code: number): void
  stdout(text: string | Uint8Array): void
  stderr(text: string): void
  /** Whether stderr is a terminal (progress bars are drawn only then). */
  isTty?: boolean
  /** The process's stdin (tributary produce). */
  stdin?: NodeJS.ReadableStream
  /** Logger factory (default: createLogger to stderr). */
  createLogger?(level: LogLevel): Logger
}
