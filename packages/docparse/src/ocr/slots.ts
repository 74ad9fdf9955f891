import os from "node:os";

/**
 * A fixed number of slots for CPU-bound work: `run` waits for a free slot, runs the task and frees the slot.
 * Waiting tasks start in the order they asked.
 */
export class Slots {
  readonly size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`slots must be a positive integer, not ${size}`);
    this.size = size;
  }

  /** Tasks running now. */
  get busy(): number {
    return this.#busy;
  }

  /** Runs `task` in a slot. A task still waiting when `signal` aborts is not run; the signal's reason is thrown. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#busy < this.size) {
      this.#busy++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener("abort", cancel);
        this.#busy++;
        resolve();
      };
      const cancel = () => {
        const index = this.#waiting.indexOf(start);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", cancel, { once: true });
      this.#waiting.push(start);
    });
  }

  #release(): void {
    this.#busy--;
    this.#waiting.shift()?.();
  }
}

/** One slot per core for OCR: a page holds a slot while an engine reads it, so engines never overcommit the CPU. */
export const ocrSlots = new Slots(os.availableParallelism());
