// The one way this directory declares a metric: a counter or a gauge in a given registry (never
// prom-client's global default one: several brokers share a test process), with its help text and
// label names. Histograms, with their buckets, are declared where they are used.
import { Counter, Gauge, type Registry } from 'prom-client'

export interface Instruments {
  counter<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Counter<L>
  gauge<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>
}

export function instrumentsOf(registry: Registry): Instruments {
  const registers = [registry]
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers }),
    gauge: (name, help, labelNames = []) => new Gauge({ name, help, labelNames, registers }),
  }
}
