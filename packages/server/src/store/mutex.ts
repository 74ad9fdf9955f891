/**
 * A first-come, first-served async mutex. The SQLite driver holds it for a whole transaction, so statements of
 * other callers never run inside it.
 */
export class Mutex {
  #locked = false;
  readonly #waiters: (() => void)[] = [];

  get locked(): boolean {
    return this.#locked;
  }

  /** Resolves when the mutex is this caller's; call the returned function once to release it. */
  async acquire(): Promise<() => void> {
    if (this.#locked) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#locked = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // Ownership passes straight to the next waiter, so no newcomer can slip in between.
      if (next) next();
      else this.#locked = false;
    };
  }

  /** Runs `fn` while holding the mutex. */
  async run<T>(fn: () => T | Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
