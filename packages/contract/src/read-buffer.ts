/**
 * Frees the memory of a chunk read from a socket once it has been written onward, instead of at the next major GC.
 *
 * Node gives every socket read its own ArrayBuffer, and V8 reclaims those only in mark-compact collections, which
 * it starts every few tens of megabytes of them: a process relaying a bulk stream spends more time collecting than
 * copying. Detaching the buffer (`ArrayBuffer.prototype.transfer`) frees it at once. Only a chunk that is the whole
 * of its ArrayBuffer is released, so a view into a shared or pooled buffer is never touched; call it only for a
 * chunk nothing else holds, after its write has completed.
 */
export function releaseReadBuffer(chunk: Uint8Array): void {
  const { buffer } = chunk;
  if (
    buffer instanceof ArrayBuffer &&
    !buffer.detached &&
    chunk.byteOffset === 0 &&
    chunk.byteLength === buffer.byteLength
  ) {
    buffer.transfer(0);
  }
}
