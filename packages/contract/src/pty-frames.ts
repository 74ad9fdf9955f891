/**
 * The binary frames of the PTY WebSocket (`/api/v1/pty/{session_id}/ws`). The first byte of every frame is its
 * opcode.
 *
 * Client → server: `0x00` + input bytes; `0x01` + cols (u16 BE) + rows (u16 BE); `0x02` READY, sent first, since
 * output produced before it is buffered (up to {@link PTY_PRE_READY_BUFFER_BYTES}).
 * Server → client: `0x00` + output bytes; `0x03` + exit code (i32 BE).
 *
 * Decoders never throw: a malformed frame gives `{ ok: false, error }`, so a hostile peer cannot crash a server.
 */

export const PtyOpcode = {
  /** Client → server: input bytes. Server → client: output bytes. */
  data: 0x00,
  resize: 0x01,
  ready: 0x02,
  exit: 0x03,
} as const;

/** Output produced before the client's READY frame is buffered up to this many bytes. */
export const PTY_PRE_READY_BUFFER_BYTES = 1024 * 1024;

/** WebSocket close code when the PTY process exits; the reason is `exit:<code>`. */
export const PTY_CLOSE_EXIT = 1000;
/** WebSocket close code when the session is deleted; the public SDKs expect exactly this reason. */
export const PTY_CLOSE_SESSION_DELETED = 1001;
export const PTY_CLOSE_SESSION_DELETED_REASON = "session terminated";

export function ptyExitCloseReason(exitCode: number): string {
  return `exit:${exitCode}`;
}

/** The exit code of an `exit:<code>` close reason, or undefined for any other reason. */
export function parsePtyExitCloseReason(reason: string): number | undefined {
  const match = /^exit:(-?\d{1,10})$/.exec(reason);
  if (!match) return undefined;
  const code = Number(match[1]);
  return code >= -2147483648 && code <= 2147483647 ? code : undefined;
}

export type PtyClientFrame =
  | { type: "input"; data: Uint8Array }
  | { type: "resize"; cols: number; rows: number }
  | { type: "ready" };

export type PtyServerFrame = { type: "output"; data: Uint8Array } | { type: "exit"; code: number };

export interface PtyFrameError {
  reason: "not_binary" | "empty" | "unknown_opcode" | "bad_length";
  message: string;
}

export type PtyDecodeResult<F> = { ok: true; frame: F } | { ok: false; error: PtyFrameError };

/** What a WebSocket library hands over for one binary message (`ws` gives any of these). */
export type PtyFrameInput = Uint8Array | ArrayBuffer | readonly Uint8Array[];

const encoder = new TextEncoder();

function withOpcode(opcode: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(1 + payload.length);
  frame[0] = opcode;
  frame.set(payload, 1);
  return frame;
}

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? encoder.encode(data) : data;
}

function checkU16(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) {
    throw new RangeError(`${name} must be an integer in 0..65535`);
  }
}

export function encodePtyInput(data: Uint8Array | string): Uint8Array {
  return withOpcode(PtyOpcode.data, bytesOf(data));
}

export function encodePtyResize(cols: number, rows: number): Uint8Array {
  checkU16("cols", cols);
  checkU16("rows", rows);
  const frame = new Uint8Array(5);
  const view = new DataView(frame.buffer);
  frame[0] = PtyOpcode.resize;
  view.setUint16(1, cols, false);
  view.setUint16(3, rows, false);
  return frame;
}

export function encodePtyReady(): Uint8Array {
  return Uint8Array.of(PtyOpcode.ready);
}

export function encodePtyOutput(data: Uint8Array | string): Uint8Array {
  return withOpcode(PtyOpcode.data, bytesOf(data));
}

export function encodePtyExit(code: number): Uint8Array {
  if (!Number.isInteger(code) || code < -2147483648 || code > 2147483647) {
    throw new RangeError("exit code must be a 32-bit signed integer");
  }
  const frame = new Uint8Array(5);
  frame[0] = PtyOpcode.exit;
  new DataView(frame.buffer).setInt32(1, code, false);
  return frame;
}

function toBytes(input: PtyFrameInput): Uint8Array | undefined {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (!Array.isArray(input) || !input.every((part) => part instanceof Uint8Array)) return undefined;
  let length = 0;
  for (const part of input) length += part.length;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const part of input) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

function fail(reason: PtyFrameError["reason"], message: string): { ok: false; error: PtyFrameError } {
  return { ok: false, error: { reason, message } };
}

/** Decodes a frame the client sent. Input bytes are a view of the frame, not a copy. */
export function decodePtyClientFrame(input: PtyFrameInput): PtyDecodeResult<PtyClientFrame> {
  const bytes = toBytes(input);
  if (bytes === undefined) return fail("not_binary", "the frame is not binary data");
  if (bytes.length === 0) return fail("empty", "empty frame");
  switch (bytes[0]) {
    case PtyOpcode.data:
      return { ok: true, frame: { type: "input", data: bytes.subarray(1) } };
    case PtyOpcode.resize: {
      if (bytes.length !== 5) return fail("bad_length", `resize frame must be 5 bytes, got ${bytes.length}`);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return {
        ok: true,
        frame: { type: "resize", cols: view.getUint16(1, false), rows: view.getUint16(3, false) },
      };
    }
    case PtyOpcode.ready:
      if (bytes.length !== 1) return fail("bad_length", `ready frame must be 1 byte, got ${bytes.length}`);
      return { ok: true, frame: { type: "ready" } };
    default:
      return fail("unknown_opcode", `unknown client opcode 0x${bytes[0].toString(16).padStart(2, "0")}`);
  }
}

/** Decodes a frame the server sent. Output bytes are a view of the frame, not a copy. */
export function decodePtyServerFrame(input: PtyFrameInput): PtyDecodeResult<PtyServerFrame> {
  const bytes = toBytes(input);
  if (bytes === undefined) return fail("not_binary", "the frame is not binary data");
  if (bytes.length === 0) return fail("empty", "empty frame");
  switch (bytes[0]) {
    case PtyOpcode.data:
      return { ok: true, frame: { type: "output", data: bytes.subarray(1) } };
    case PtyOpcode.exit: {
      if (bytes.length !== 5) return fail("bad_length", `exit frame must be 5 bytes, got ${bytes.length}`);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return { ok: true, frame: { type: "exit", code: view.getInt32(1, false) } };
    }
    default:
      return fail("unknown_opcode", `unknown server opcode 0x${bytes[0].toString(16).padStart(2, "0")}`);
  }
}
