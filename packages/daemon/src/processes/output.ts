import { isAscii, isUtf8 } from "node:buffer";
import { type FileHandle, open, rm } from "node:fs/promises";
import type { OutputStream } from "@svc/contract/runtime";
import { cutPoint, decodeLineBytes } from "./line-text.ts";

/**
 * The captured output of one process, in arrival order across stdout and stderr.
 *
 * Lines: bytes are split on `\n`; a `\r` right before a `\n` is removed with it (so `\r\n` gives the line
 * without either), any other `\r` stays inside the line (progress bars keep their carriage returns); output
 * that ends without a newline still gives its last line when the stream closes. A line longer than
 * `maxLineBytes` is cut into pieces of that size (at a UTF-8 character boundary). Bytes become text as
 * line-text.ts describes (lossless "surrogateescape" for invalid UTF-8).
 *
 * Storage: output is kept as raw byte blocks (the complete lines of one pipe read, with one timestamp) and
 * decoded when read. The newest blocks stay in memory up to `maxMemoryBytes`; older ones are moved ("spilled")
 * to an append-only spool file, so a reader that starts from the beginning still gets every line, in order.
 * While the spool cannot keep up, {@link OutputStore.write} returns false and the caller pauses the pipe (the
 * process then blocks on its writes) until {@link OutputStore.onceFlowing} fires. Should the spool file reach
 * `maxSpoolBytes`, or a write to it fail (disk full), the store stops spilling and drops its oldest in-memory
 * blocks instead: a reader then gets the spooled beginning, one marker line saying output was dropped, and the
 * recent lines.
 */
export interface OutputStoreOptions {
  /** The spool file; created on the first spill, removed by {@link OutputStore.dispose}. */
  spoolPath: string;
  /** Bytes of captured output held in memory before older blocks go to the spool file. */
  maxMemoryBytes: number;
  /** Longest line; longer ones are cut into pieces of this many bytes. */
  maxLineBytes: number;
  /** Largest spool file; past it the oldest in-memory output is dropped with a marker. */
  maxSpoolBytes: number;
  /** Called once when the store starts dropping output. */
  onDrop?: (reason: string) => void;
}

/** Consecutive lines of one stream that arrived together, decoded for readers. */
export interface OutputBlock {
  readonly stream: OutputStream;
  /** Milliseconds since the epoch when the lines arrived. */
  readonly timestamp: number;
  /** The lines joined with `\n` (a block of one empty line is ""). */
  readonly text: string;
  /** The text is all ASCII (its UTF-8 and Latin-1 encodings are the same bytes). */
  readonly ascii: boolean;
}

/** Where a reader is: the next block's sequence number and its offset in the spool file. */
export interface OutputPosition {
  seq: number;
  offset: number;
  /** The reader's window on the spool file, kept from read to read (spooled bytes never change). */
  window?: SpoolWindow;
}

/** Bytes of the spool file from `start`; `buffer` is reused for the next window. */
interface SpoolWindow {
  buffer: Buffer;
  start: number;
  length: number;
}

/** A block as stored: raw bytes of lines separated by `\n`. */
interface StoredBlock {
  readonly stream: OutputStream;
  readonly timestamp: number;
  readonly bytes: Buffer;
  /** The last line was ended by a `\n` (so a `\r` before it goes too). */
  readonly terminated: boolean;
}

// Spool record: flags u8 (bit 0 stderr, bit 1 terminated), timestamp f64, length u32, then the bytes.
const HEADER_BYTES = 13;
/** Memory counted per block beyond its bytes. */
const BLOCK_OVERHEAD = 128;
const SPILL_BATCH_BYTES = 4 * 1024 * 1024;
const READ_WINDOW_BYTES = 1024 * 1024;

function decodeBlock(block: StoredBlock): OutputBlock {
  let text: string;
  const ascii = isAscii(block.bytes);
  if (ascii) text = block.bytes.toString("latin1");
  else if (isUtf8(block.bytes)) text = block.bytes.toString("utf8");
  else text = decodeLineBytes(block.bytes).text;
  if (text.includes("\r")) {
    text = text.replaceAll("\r\n", "\n");
    if (block.terminated && text.endsWith("\r")) text = text.slice(0, -1);
  }
  return { stream: block.stream, timestamp: block.timestamp, text, ascii };
}

/** Number of lines of a decoded block. */
export function lineCount(block: OutputBlock): number {
  let count = 1;
  for (let i = block.text.indexOf("\n"); i !== -1; i = block.text.indexOf("\n", i + 1)) count++;
  return count;
}

function memoryBytes(block: StoredBlock): number {
  return block.bytes.length + BLOCK_OVERHEAD;
}

function recordHeader(block: StoredBlock): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt8((block.stream === "stderr" ? 1 : 0) | (block.terminated ? 2 : 0), 0);
  header.writeDoubleLE(block.timestamp, 1);
  header.writeUInt32LE(block.bytes.length, 9);
  return header;
}

interface StreamState {
  carry: Buffer[];
  carryBytes: number;
  ended: boolean;
}

export class OutputStore {
  readonly #options: OutputStoreOptions;
  #maxMemoryBytes: number;
  readonly #streams: Record<OutputStream, StreamState> = {
    stdout: { carry: [], carryBytes: 0, ended: false },
    stderr: { carry: [], carryBytes: 0, ended: false },
  };
  /** In-memory blocks; `#blocks[#head]` has sequence number `#firstSeq`. */
  #blocks: (StoredBlock | undefined)[] = [];
  #head = 0;
  #firstSeq = 0;
  #nextSeq = 0;
  #memoryBytes = 0;
  /** Blocks `[0, #spilledSeq)` are in the spool file, `#spilledBytes` long. */
  #spilledSeq = 0;
  #spilledBytes = 0;
  #file: FileHandle | undefined;
  #spilling = false;
  #dropReason: string | undefined;
  #ended = false;
  #disposed = false;
  #listeners = new Set<() => void>();
  #flowingWaiters: (() => void)[] = [];

  constructor(options: OutputStoreOptions) {
    this.#options = options;
    this.#maxMemoryBytes = options.maxMemoryBytes;
  }

  /** Every stream has ended: no more lines will come. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Sequence number the next block will get: the count of blocks so far. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** Bytes of output held in memory now (lines and partial lines). */
  get memoryBytes(): number {
    return this.#memoryBytes + this.#streams.stdout.carryBytes + this.#streams.stderr.carryBytes;
  }

  get spooledBytes(): number {
    return this.#spilledBytes;
  }

  /** Adds bytes read from a stream. False asks the caller to pause that stream until {@link onceFlowing}. */
  write(stream: OutputStream, chunk: Buffer): boolean {
    const state = this.#streams[stream];
    if (state.ended || this.#disposed || chunk.length === 0) return true;
    const timestamp = Date.now();
    const lastNewline = chunk.lastIndexOf(10);
    if (lastNewline === -1) {
      this.#carry(stream, state, chunk, timestamp);
    } else {
      let start = 0;
      if (state.carryBytes > 0) {
        // The line the carry began ends at the first newline; it is a block of its own, so the rest of the
        // chunk is stored without copying.
        const firstNewline = chunk.indexOf(10);
        this.#append(
          stream,
          timestamp,
          Buffer.concat([...state.carry, chunk.subarray(0, firstNewline)]),
          true,
        );
        state.carry = [];
        state.carryBytes = 0;
        start = firstNewline + 1;
      }
      if (start <= lastNewline) this.#append(stream, timestamp, chunk.subarray(start, lastNewline), true);
      if (lastNewline + 1 < chunk.length)
        this.#carry(stream, state, chunk.subarray(lastNewline + 1), timestamp);
    }
    this.#afterAppend();
    return this.#isFlowing();
  }

  /** The stream closed (or is not captured): its unterminated last line becomes a line. */
  endStream(stream: OutputStream): void {
    const state = this.#streams[stream];
    if (state.ended) return;
    state.ended = true;
    if (state.carryBytes > 0 && !this.#disposed) {
      const rest = Buffer.concat(state.carry);
      state.carry = [];
      state.carryBytes = 0;
      this.#append(stream, Date.now(), rest, false);
      this.#afterAppend();
    }
    if (this.#streams.stdout.ended && this.#streams.stderr.ended) {
      this.#ended = true;
      this.#notify();
    }
  }

  /** Calls `callback` once memory is back under the limit (at once when it is). */
  onceFlowing(callback: () => void): void {
    if (this.#isFlowing()) callback();
    else this.#flowingWaiters.push(callback);
  }

  /** Lowers (or raises) the memory limit, e.g. once the process has ended; spills down to it. */
  setMemoryLimit(bytes: number): void {
    this.#maxMemoryBytes = bytes;
    this.#afterAppend();
  }

  /** A reader over the blocks; see {@link OutputCursor}. */
  cursor(options: CursorOptions = {}): OutputCursor {
    return new OutputCursor(this, options);
  }

  /** Registers a listener for new blocks and the end; returns its removal. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Reads blocks from `position` (advancing it) up to sequence `limit`, about `maxBytes` at most but always at
   * least one block when one is available. Blocks of another stream than `stream` are skipped, so the result
   * may be empty.
   */
  async read(
    position: OutputPosition,
    limit: number,
    stream: OutputStream | undefined,
    maxBytes: number,
  ): Promise<OutputBlock[]> {
    if (this.#disposed) throw new Error("output store is disposed");
    const end = Math.min(limit, this.#nextSeq);
    if (position.seq >= end) return [];
    if (position.seq < this.#spilledSeq) {
      return this.#readSpooled(position, Math.min(end, this.#spilledSeq), stream, maxBytes);
    }
    if (position.seq < this.#firstSeq) {
      // Dropped blocks: the spool is never written again, so the reader goes on in memory.
      position.seq = this.#firstSeq;
      return [
        {
          stream: stream ?? "stderr",
          timestamp: Date.now(),
          text: `[svc-daemon: output dropped here: ${this.#dropReason ?? "spool unavailable"}]`,
          ascii: true,
        },
      ];
    }
    const out: OutputBlock[] = [];
    let bytes = 0;
    while (position.seq < end && (bytes < maxBytes || out.length === 0)) {
      const block = this.#blocks[this.#head + (position.seq - this.#firstSeq)] as StoredBlock;
      position.offset += HEADER_BYTES + block.bytes.length;
      position.seq++;
      if (stream === undefined || block.stream === stream) {
        out.push(decodeBlock(block));
        bytes += block.bytes.length;
      }
    }
    return out;
  }

  /** Stops capturing, closes and removes the spool file; readers end. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#ended = true;
    this.#blocks = [];
    this.#memoryBytes = 0;
    for (const state of Object.values(this.#streams)) {
      state.carry = [];
      state.carryBytes = 0;
    }
    this.#notify();
    this.#releaseFlowing();
    const file = this.#file;
    this.#file = undefined;
    await file?.close().catch(() => {});
    await rm(this.#options.spoolPath, { force: true }).catch(() => {});
  }

  #carry(stream: OutputStream, state: StreamState, bytes: Buffer, timestamp: number): void {
    state.carry.push(bytes);
    state.carryBytes += bytes.length;
    const max = this.#options.maxLineBytes;
    while (state.carryBytes >= max) {
      const all = Buffer.concat(state.carry);
      const cut = cutPoint(all, max);
      this.#append(stream, timestamp, all.subarray(0, cut), false);
      const rest = all.subarray(cut);
      state.carry = rest.length > 0 ? [rest] : [];
      state.carryBytes = rest.length;
    }
  }

  #append(stream: OutputStream, timestamp: number, bytes: Buffer, terminated: boolean): void {
    // A small piece of a large read buffer is copied, so the rest of that buffer can be freed.
    const own = bytes.length * 2 < bytes.buffer.byteLength ? Buffer.from(bytes) : bytes;
    const block: StoredBlock = { stream, timestamp, bytes: own, terminated };
    this.#blocks.push(block);
    this.#nextSeq++;
    this.#memoryBytes += memoryBytes(block);
    this.#notify();
  }

  #isFlowing(): boolean {
    return this.#memoryBytes <= 2 * this.#maxMemoryBytes || this.#disposed;
  }

  #afterAppend(): void {
    if (this.#memoryBytes <= this.#maxMemoryBytes) return;
    if (this.#dropReason !== undefined) this.#dropOldest();
    else if (!this.#spilling) void this.#spill();
  }

  /** Memory use a spill or drop brings the store down to. */
  #lowWater(): number {
    return Math.floor(this.#maxMemoryBytes / 2);
  }

  async #spill(): Promise<void> {
    this.#spilling = true;
    try {
      while (
        !this.#disposed &&
        this.#dropReason === undefined &&
        this.#memoryBytes > this.#lowWater() &&
        this.#head < this.#blocks.length
      ) {
        const goal = this.#memoryBytes - this.#lowWater();
        const buffers: Buffer[] = [];
        let fileBytes = 0;
        let freed = 0;
        let count = 0;
        for (
          let i = this.#head;
          i < this.#blocks.length && freed < goal && fileBytes < SPILL_BATCH_BYTES;
          i++
        ) {
          const block = this.#blocks[i] as StoredBlock;
          buffers.push(recordHeader(block), block.bytes);
          fileBytes += HEADER_BYTES + block.bytes.length;
          freed += memoryBytes(block);
          count++;
        }
        if (this.#spilledBytes + fileBytes > this.#options.maxSpoolBytes) {
          this.#startDropping(`the spool file reached its limit of ${this.#options.maxSpoolBytes} bytes`);
          break;
        }
        try {
          this.#file ??= await open(this.#options.spoolPath, "w+", 0o600);
          const { bytesWritten } = await this.#file.writev(buffers, this.#spilledBytes);
          if (bytesWritten !== fileBytes)
            throw new Error(`short write (${bytesWritten} of ${fileBytes} bytes)`);
        } catch (error) {
          if (this.#disposed) return;
          this.#startDropping(`the spool file could not be written (${(error as Error).message})`);
          break;
        }
        if (this.#disposed) return;
        this.#spilledBytes += fileBytes;
        this.#spilledSeq += count;
        this.#firstSeq += count;
        this.#discardHead(count, freed);
      }
    } finally {
      this.#spilling = false;
    }
    if (this.#dropReason !== undefined) this.#dropOldest();
    this.#releaseFlowing();
    // Blocks may have arrived during the last write.
    if (this.#memoryBytes > this.#maxMemoryBytes) this.#afterAppend();
  }

  #startDropping(reason: string): void {
    this.#dropReason = reason;
    this.#options.onDrop?.(reason);
  }

  #dropOldest(): void {
    if (this.#memoryBytes <= this.#maxMemoryBytes) return;
    let freed = 0;
    let count = 0;
    const goal = this.#memoryBytes - this.#lowWater();
    for (let i = this.#head; i < this.#blocks.length && freed < goal; i++) {
      freed += memoryBytes(this.#blocks[i] as StoredBlock);
      count++;
    }
    this.#firstSeq += count;
    this.#discardHead(count, freed);
    this.#releaseFlowing();
  }

  #discardHead(count: number, freed: number): void {
    for (let i = 0; i < count; i++) this.#blocks[this.#head + i] = undefined;
    this.#head += count;
    this.#memoryBytes -= freed;
    if (this.#head > 1024 && this.#head * 2 > this.#blocks.length) {
      this.#blocks = this.#blocks.slice(this.#head);
      this.#head = 0;
    }
  }

  #releaseFlowing(): void {
    if (!this.#isFlowing() || this.#flowingWaiters.length === 0) return;
    const waiters = this.#flowingWaiters;
    this.#flowingWaiters = [];
    for (const waiter of waiters) waiter();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  async #readSpooled(
    position: OutputPosition,
    end: number,
    stream: OutputStream | undefined,
    maxBytes: number,
  ): Promise<OutputBlock[]> {
    const file = this.#file;
    if (!file) throw new Error("spool file missing");
    const fileEnd = this.#spilledBytes;
    // Spooled bytes are decoded into strings at once, so one buffer per reader serves every read.
    position.window ??= { buffer: Buffer.alloc(0), start: 0, length: 0 };
    const window = position.window;
    const ensure = async (from: number, length: number) => {
      if (from >= window.start && from + length <= window.start + window.length) return;
      const size = Math.min(Math.max(length, READ_WINDOW_BYTES), fileEnd - from);
      if (window.buffer.length < size) window.buffer = Buffer.allocUnsafe(Math.max(size, READ_WINDOW_BYTES));
      window.length = 0;
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await file.read(window.buffer, filled, size - filled, from + filled);
        if (bytesRead === 0) throw new Error("spool file is shorter than expected");
        filled += bytesRead;
      }
      window.start = from;
      window.length = size;
    };
    const out: OutputBlock[] = [];
    let bytes = 0;
    while (position.seq < end && (bytes < maxBytes || out.length === 0)) {
      await ensure(position.offset, HEADER_BYTES);
      let at = position.offset - window.start;
      const flags = window.buffer.readUInt8(at);
      const length = window.buffer.readUInt32LE(at + 9);
      const blockStream: OutputStream = flags & 1 ? "stderr" : "stdout";
      if (stream === undefined || stream === blockStream) {
        const timestamp = window.buffer.readDoubleLE(at + 1);
        await ensure(position.offset, HEADER_BYTES + length);
        at = position.offset - window.start;
        const stored: StoredBlock = {
          stream: blockStream,
          timestamp,
          bytes: window.buffer.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length),
          terminated: (flags & 2) !== 0,
        };
        out.push(decodeBlock(stored));
        bytes += length;
      }
      position.offset += HEADER_BYTES + length;
      position.seq++;
    }
    return out;
  }
}

export interface CursorOptions {
  /** Only this stream's blocks; both when omitted. */
  stream?: OutputStream;
  /** Stop at the blocks present now instead of following live output. */
  snapshot?: boolean;
  /** About how many bytes one {@link OutputCursor.next} returns. */
  maxBatchBytes?: number;
}

/**
 * Reads a store from its first block: everything spooled, then what is in memory, then live blocks as they
 * arrive, until the store ends (or the snapshot limit is reached, or the cursor is closed).
 *
 * @example
 * const cursor = store.cursor({ stream: "stderr" });
 * for (let blocks = await cursor.next(); blocks; blocks = await cursor.next()) send(blocks);
 */
export class OutputCursor {
  readonly #store: OutputStore;
  readonly #stream: OutputStream | undefined;
  readonly #maxBatchBytes: number;
  readonly #position: OutputPosition = { seq: 0, offset: 0 };
  #limit: number | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(store: OutputStore, options: CursorOptions) {
    this.#store = store;
    this.#stream = options.stream;
    this.#maxBatchBytes = options.maxBatchBytes ?? 64 * 1024;
    if (options.snapshot) this.#limit = store.nextSeq;
  }

  /** The next blocks; undefined when there will be no more. */
  async next(): Promise<OutputBlock[] | undefined> {
    for (;;) {
      if (this.#closed) return undefined;
      const limit = this.#limit ?? this.#store.nextSeq;
      if (this.#position.seq < limit) {
        const blocks = await this.#store.read(this.#position, limit, this.#stream, this.#maxBatchBytes);
        if (blocks.length > 0) return blocks;
        continue;
      }
      if (this.#limit !== undefined || this.#store.ended) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          unsubscribe();
          this.#wake = undefined;
          resolve();
        };
        const unsubscribe = this.#store.subscribe(wake);
        this.#wake = wake;
      });
    }
  }

  /** Ends the cursor after the blocks that exist now, even if the store goes on. */
  stopAtCurrent(): void {
    this.#limit = this.#store.nextSeq;
    this.#wake?.();
  }

  /** Ends the cursor now; a pending {@link next} returns undefined. */
  close(): void {
    this.#closed = true;
    this.#wake?.();
  }
}
