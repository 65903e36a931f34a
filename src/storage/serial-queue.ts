// Runs async tasks one at a time in call order — how appends to one log stay serialized even when
// callers do not await each other. A failed task does not stop the ones queued after it.
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task)
    this.tail = result.catch(() => {})
    return result
  }

  /** Resolves once every task queued so far has settled. */
  idle(): Promise<void> {
    return this.tail.then(() => {})
  }
}
