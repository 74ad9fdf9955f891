/**
 * Runs work one at a time per key (a sandbox's egress applies, its mount convergences): a job starts when the
 * key's previous job is done, whether it succeeded or failed, and the key is forgotten once its queue is empty.
 */
export class KeyedQueue {
  readonly #last = new Map<string, Promise<void>>();

  /** Queues `job` after the key's jobs under way; resolves or rejects with it. */
  run(key: string, job: () => Promise<void>): Promise<void> {
    const previous = this.#last.get(key) ?? Promise.resolve();
    const turn = previous.catch(() => undefined).then(job);
    this.#last.set(key, turn);
    const forget = () => {
      if (this.#last.get(key) === turn) this.#last.delete(key);
    };
    turn.then(forget, forget);
    return turn;
  }

  /** Resolves when the key's queued jobs are done (their failures are theirs to report). */
  async settled(key: string): Promise<void> {
    await this.#last.get(key)?.catch(() => undefined);
  }
}
