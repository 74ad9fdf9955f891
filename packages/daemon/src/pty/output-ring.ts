/**
 * The most recent output of a PTY session, at most `capacity` bytes: what a client that connects (or reconnects)
 * receives after its READY frame. Older bytes are dropped from the front.
 */
export class OutputRing {
  readonly capacity: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#size;
  }

  push(chunk: Buffer): void {
    if (chunk.length >= this.capacity) {
      this.#chunks = [Buffer.from(chunk.subarray(chunk.length - this.capacity))];
      this.#size = this.capacity;
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.capacity) {
      const first = this.#chunks[0];
      const excess = this.#size - this.capacity;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  /** Everything held, oldest first, as one buffer. */
  snapshot(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }
}
