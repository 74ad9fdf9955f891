import { EventEmitter } from "node:events";

/**
 * In-process signals about parse jobs: a job was queued (idle workers wake at once instead of at their next
 * poll) or a job's state changed (event streams send it at once). Other hosts' changes are seen by polling.
 */
export class JobEvents {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  queued(): void {
    this.#emitter.emit("queued");
  }

  onQueued(listener: () => void): () => void {
    this.#emitter.on("queued", listener);
    return () => this.#emitter.off("queued", listener);
  }

  changed(jobId: string): void {
    this.#emitter.emit(`job:${jobId}`);
  }

  onChanged(jobId: string, listener: () => void): () => void {
    this.#emitter.on(`job:${jobId}`, listener);
    return () => this.#emitter.off(`job:${jobId}`, listener);
  }
}
