/**
 * Reading byte streams from sockets cheaply, for the processes that relay tunnel traffic (the sandbox proxy, the
 * daemon's TCP tunnel, the SDK's local tunnel listener).
 *
 * By default Node reads a socket 64 KiB at a time, each read into an ArrayBuffer of its own. Relaying a bulk
 * stream then costs a read and a write system call per 64 KiB, and V8 frees those buffers only in mark-compact
 * collections. `readChunks` takes a plain TCP socket over and reads it into buffers it reuses: 256 KiB at a time
 * while reads come back large, 4 KiB after a small one, so a quiet connection keeps 4 KiB, not 256 (one that went
 * quiet right after a large read keeps its 256 KiB until it reads again).
 */
import net from "node:net";
import type { Duplex } from "node:stream";

const QUIET_READ = 4 * 1024;
const BULK_READ = 256 * 1024;
/** A read at least this large (or one that filled its buffer) means data keeps coming: the next read is bulk. */
const BULK_THRESHOLD = 64 * 1024;
/** Bulk buffers kept for reuse in this process once their chunks are written; more are left to the GC. */
const SPARE_BULK_BUFFERS = 16;
const spareBulk: Buffer<ArrayBuffer>[] = [];

/**
 * Keeps a chunk's memory from being reused: call it before handing the chunk to an asynchronous write, and call
 * what it returns once that write has completed (or failed). Without a hold, a chunk is valid only while the
 * handler runs.
 */
export type Hold = () => () => void;

/** Called for each read; returning false pauses reading until `resume()` on the socket `readChunks` returned. */
export type ChunkHandler = (chunk: Buffer, hold: Hold) => boolean | undefined;

/**
 * Frees the memory of a chunk read from a socket once it has been written onward, instead of at the next major GC.
 * Only a chunk that is the whole of its ArrayBuffer is released, so a view into a shared or pooled buffer is never
 * touched; call it only for a chunk nothing else holds, after its write has completed.
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

/** The holds on one read buffer, starting with the handler's own; `free` runs when the last is released. */
class Holds {
  #count = 1;
  readonly #free: () => void;

  constructor(free: () => void) {
    this.#free = free;
  }

  readonly hold: Hold = () => {
    this.#count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  };

  release(): void {
    if (--this.#count === 0) this.#free();
  }
}

/** Reads into reused buffers: Node's `onread` hooks, with a new buffer only while the last one is held. */
class PooledReads {
  readonly #onChunk: ChunkHandler;
  #next: Buffer<ArrayBuffer> = Buffer.allocUnsafeSlow(QUIET_READ);
  #spareQuiet: Buffer<ArrayBuffer> | undefined;

  constructor(onChunk: ChunkHandler) {
    this.#onChunk = onChunk;
  }

  /** The buffer the next read goes into (Node asks after every read). */
  readonly next = (): Buffer => this.#next;

  readonly read = (length: number, buffer: Buffer<ArrayBuffer>): boolean => {
    const bulk = buffer.length === BULK_READ;
    const holds = new Holds(() => {
      if (!bulk) this.#spareQuiet = buffer;
      else if (spareBulk.length < SPARE_BULK_BUFFERS) spareBulk.push(buffer);
    });
    const result = this.#onChunk(buffer.subarray(0, length), holds.hold);
    holds.release();
    if (length >= BULK_THRESHOLD || length === buffer.length)
      this.#next = spareBulk.pop() ?? Buffer.allocUnsafeSlow(BULK_READ);
    else {
      this.#next = this.#spareQuiet ?? Buffer.allocUnsafeSlow(QUIET_READ);
      this.#spareQuiet = undefined;
    }
    return result !== false;
  };
}

/** Hands the handler a chunk with an ArrayBuffer of its own (Node's own reads): it is freed once its holds are. */
function handOwnChunk(onChunk: ChunkHandler, chunk: Buffer): boolean {
  const holds = new Holds(() => releaseReadBuffer(chunk));
  const result = onChunk(chunk, holds.hold);
  holds.release();
  return result !== false;
}

/** The internals of a net.Socket that a takeover moves: its libuv handle and the server counting it. */
interface SocketInternals {
  _handle?: { constructor: { name: string } } | null;
  _readableState?: { ended: boolean };
  _server?: unknown;
  server?: unknown;
}

/**
 * Calls `onChunk` for every chunk read from `socket`, which starts flowing. A plain TCP socket is taken over: a new
 * net.Socket on the same connection reads into reused buffers, and is returned; `socket` is then finished (its
 * listeners removed) and must not be used again. Any other stream (TLS, a socket mid-connect, past its EOF or
 * with writes in flight) is read through its 'data' events, each chunk released once its holds are, and returned
 * as it is. Attach listeners to what is returned; chunks already buffered in `socket` come first, on the next
 * tick.
 */
export function readChunks<S extends Duplex>(socket: S, onChunk: ChunkHandler): S {
  const internals = socket as S & SocketInternals;
  const handle = internals._handle;
  if (
    !(socket instanceof net.Socket) ||
    handle?.constructor.name !== "TCP" ||
    socket.connecting ||
    socket.destroyed ||
    // After its EOF, a handle reads no more: the socket ends through its own stream.
    internals._readableState?.ended !== false ||
    socket.writableLength > 0
  ) {
    socket.on("data", (chunk: Buffer) => {
      if (!handOwnChunk(onChunk, chunk)) socket.pause();
    });
    socket.resume();
    return socket;
  }
  const pending: Buffer[] = [];
  for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) pending.push(chunk);
  const reads = new PooledReads(onChunk);
  const taken = new net.Socket({
    handle,
    allowHalfOpen: socket.allowHalfOpen,
    readable: true,
    writable: true,
    onread: { buffer: reads.next, callback: reads.read as (length: number, buffer: Uint8Array) => boolean },
  } as unknown as net.SocketConstructorOpts) as net.Socket & SocketInternals;
  // The server that accepted the connection counts it until the new socket closes.
  taken._server = internals._server;
  taken.server = internals.server;
  internals._server = null;
  internals._handle = null;
  socket.removeAllListeners();
  socket.on("error", () => {});
  socket.destroy();
  if (pending.length > 0) {
    process.nextTick(() => {
      for (const chunk of pending) if (!handOwnChunk(onChunk, chunk)) taken.pause();
    });
  }
  return taken as unknown as S;
}
