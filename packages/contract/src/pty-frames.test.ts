import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import {
  decodePtyClientFrame,
  decodePtyServerFrame,
  encodePtyExit,
  encodePtyInput,
  encodePtyOutput,
  encodePtyReady,
  encodePtyResize,
  PTY_CLOSE_EXIT,
  PTY_CLOSE_SESSION_DELETED,
  PTY_CLOSE_SESSION_DELETED_REASON,
  type PtyFrameInput,
  parsePtyExitCloseReason,
  ptyExitCloseReason,
} from "./pty-frames.ts";

test("encodes frames with the documented bytes", () => {
  assert.deepEqual([...encodePtyInput("ls\n")], [0x00, 0x6c, 0x73, 0x0a]);
  assert.deepEqual([...encodePtyResize(80, 24)], [0x01, 0x00, 0x50, 0x00, 0x18]);
  assert.deepEqual([...encodePtyResize(0x1234, 0xabcd)], [0x01, 0x12, 0x34, 0xab, 0xcd]);
  assert.deepEqual([...encodePtyReady()], [0x02]);
  assert.deepEqual([...encodePtyOutput(Uint8Array.of(1, 2, 3))], [0x00, 1, 2, 3]);
  assert.deepEqual([...encodePtyExit(1)], [0x03, 0, 0, 0, 1]);
  assert.deepEqual([...encodePtyExit(-1)], [0x03, 0xff, 0xff, 0xff, 0xff]);
});

test("client frames round-trip", () => {
  const input = decodePtyClientFrame(encodePtyInput("héllo 🚀"));
  assert.ok(input.ok && input.frame.type === "input");
  assert.equal(new TextDecoder().decode(input.frame.data), "héllo 🚀");

  for (const [cols, rows] of [
    [80, 24],
    [0, 0],
    [65535, 65535],
    [1000, 500],
  ]) {
    assert.deepEqual(decodePtyClientFrame(encodePtyResize(cols, rows)), {
      ok: true,
      frame: { type: "resize", cols, rows },
    });
  }
  assert.deepEqual(decodePtyClientFrame(encodePtyReady()), { ok: true, frame: { type: "ready" } });

  const empty = decodePtyClientFrame(encodePtyInput(""));
  assert.ok(empty.ok && empty.frame.type === "input" && empty.frame.data.length === 0);
});

test("server frames round-trip", () => {
  const bytes = randomBytes(4096);
  const output = decodePtyServerFrame(encodePtyOutput(bytes));
  assert.ok(output.ok && output.frame.type === "output");
  assert.deepEqual(Buffer.from(output.frame.data), bytes);

  for (const code of [0, 1, 127, 255, -1, 2147483647, -2147483648]) {
    assert.deepEqual(decodePtyServerFrame(encodePtyExit(code)), { ok: true, frame: { type: "exit", code } });
  }
});

test("decodes from ArrayBuffer, fragment lists and views at an offset", () => {
  const frame = encodePtyResize(132, 43);
  const expected = { ok: true, frame: { type: "resize", cols: 132, rows: 43 } };
  assert.deepEqual(decodePtyClientFrame(frame.slice().buffer), expected);
  assert.deepEqual(
    decodePtyClientFrame([Buffer.from(frame.subarray(0, 2)), Buffer.from(frame.subarray(2))]),
    expected,
  );
  // A frame inside a larger buffer (as pooled Buffers are): the offset must be honoured.
  const pooled = Buffer.alloc(64, 0xee);
  pooled.set(frame, 17);
  assert.deepEqual(decodePtyClientFrame(pooled.subarray(17, 22)), expected);

  const exit = Buffer.alloc(32, 0xee);
  exit.set(encodePtyExit(-2), 9);
  assert.deepEqual(decodePtyServerFrame(exit.subarray(9, 14)), {
    ok: true,
    frame: { type: "exit", code: -2 },
  });
});

test("malformed frames give typed errors", () => {
  const cases: [PtyFrameInput, string][] = [
    [new Uint8Array(0), "empty"],
    [[], "empty"],
    [Uint8Array.of(0x01, 0, 80, 0), "bad_length"],
    [Uint8Array.of(0x01, 0, 80, 0, 24, 0), "bad_length"],
    [Uint8Array.of(0x02, 0), "bad_length"],
    [Uint8Array.of(0x03, 0, 0, 0, 0), "unknown_opcode"],
    [Uint8Array.of(0xff), "unknown_opcode"],
    ["text" as unknown as PtyFrameInput, "not_binary"],
    [[Uint8Array.of(0), "x"] as unknown as PtyFrameInput, "not_binary"],
    [null as unknown as PtyFrameInput, "not_binary"],
  ];
  for (const [input, reason] of cases) {
    const result = decodePtyClientFrame(input);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.error.reason === reason, `${String(input)} → ${reason}`);
    assert.equal(typeof (!result.ok && result.error.message), "string");
  }

  for (const [input, reason] of [
    [new Uint8Array(0), "empty"],
    [Uint8Array.of(0x03, 0, 0, 0), "bad_length"],
    [Uint8Array.of(0x03, 0, 0, 0, 0, 0), "bad_length"],
    [Uint8Array.of(0x01, 0, 80, 0, 24), "unknown_opcode"],
    [Uint8Array.of(0x02), "unknown_opcode"],
  ] as const) {
    const result = decodePtyServerFrame(input);
    assert.ok(!result.ok && result.error.reason === reason);
  }
});

test("random bytes never make a decoder throw", () => {
  for (let i = 0; i < 2000; i++) {
    const bytes = randomBytes(i % 9);
    const client = decodePtyClientFrame(bytes);
    const server = decodePtyServerFrame(bytes);
    assert.equal(typeof client.ok, "boolean");
    assert.equal(typeof server.ok, "boolean");
  }
});

test("encoders reject values that do not fit the frame", () => {
  assert.throws(() => encodePtyResize(65536, 24), RangeError);
  assert.throws(() => encodePtyResize(80, -1), RangeError);
  assert.throws(() => encodePtyResize(80.5, 24), RangeError);
  assert.throws(() => encodePtyExit(2147483648), RangeError);
  assert.throws(() => encodePtyExit(0.5), RangeError);
});

test("close codes and exit reasons", () => {
  assert.equal(PTY_CLOSE_EXIT, 1000);
  assert.equal(PTY_CLOSE_SESSION_DELETED, 1001);
  // The official SDKs' Pty.wait() takes only this reason as a deliberate end of the session.
  assert.equal(PTY_CLOSE_SESSION_DELETED_REASON, "session terminated");
  for (const code of [0, 1, 130, -1]) assert.equal(parsePtyExitCloseReason(ptyExitCloseReason(code)), code);
  assert.equal(ptyExitCloseReason(2), "exit:2");
  for (const reason of [
    "",
    "exit:",
    "exit:x",
    "exit:1 ",
    "session terminated",
    "exit:99999999999",
    "exit:2147483648",
  ]) {
    assert.equal(parsePtyExitCloseReason(reason), undefined, reason);
  }
});
