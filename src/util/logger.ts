// A small levelled logger writing one line per event to stderr. The broker takes a Logger so
// embedded brokers (tests) can silence or capture it.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  child(name: string): Logger
}

export function createLogger(
  level: LogLevel = 'info',
  name = 'tributary',
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const min = ORDER[level]
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return
    let line = `${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} [${name}] ${msg}`
    if (fields) {
      for (const [k, v] of Object.entries(fields)) {
        line += ` ${k}=${v instanceof Error ? v.message : typeof v === 'string' ? v : JSON.stringify(v)}`
      }
    }
    write(line)
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (child) => createLogger(level, `${name}.${child}`, write),
  }
}

export const silentLogger: Logger = createLogger('silent')
