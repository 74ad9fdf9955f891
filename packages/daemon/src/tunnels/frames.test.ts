import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { clientFrame } from "../websocket-testing.ts";
import { closePayload, FrameReader, frameHeader, Opcode } from "./frames.ts";

type Event =
  | { type: "data"; bytes: Buffer }
  | { type: "end"; length: number }
  | { type: "text" }
  | { type: "close"; code: number | undefined; reason: string }
  | { type: "ping"; payload: Buffer }
  | { type: "error"; code: number };

/** Feeds `input` to a reader in chunks of the given sizes (the rest in one), and records what it reports. */
function read(input: Buffer, chunkSizes: number[] = []): Event[] {
  const events: Event[] = [];
  const reader = new FrameReader({
    data: (bytes) => events.push({ type: "data", bytes: Buffer.from(bytes) }),
    messageEnd: (length) => events.push({ type: "end", length }),
    text: () => events.push({ type: "text" }),
    close: (code, reason) => events.push({ type: "close", code, reason }),
    ping: (payload) => events.push({ type: "ping", payload: Buffer.from(payload) }),
    error: (code) => events.push({ type: "error", code }),
  });
  // A copy: the reader unmasks in place.
  const bytes = Buffer.from(input);
  let at = 0;
  for (const size of chunkSizes) {
    reader.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at < bytes.length) reader.push(bytes.subarray(at));
  return events;
}

/** The bytes of every data event, and the other events in order. */
function summary(events: Event[]): { data: Buffer; others: Event[] } {
  return {
    data: Buffer.concat(events.flatMap((e) => (e.type === "data" ? [e.bytes] : []))),
    others: events.filter((e) => e.type !== "data"),
  };
}

describe("tunnel WebSocket frames", () => {
  test("binary payloads of every length class come out unmasked, whatever the chunking", () => {
    for (const length of [0, 1, 125, 126, 65535, 65536, 200_000]) {
      const payload = randomBytes(length);
      const frame = clientFrame(Opcode.binary, payload);
      for (const chunks of [[], [1], [1, 1, 1, 1, 1, 1, 1], [3, 7], [frame.length - 1], [9, 4096, 5]]) {
        const { data, others } = summary(read(frame, chunks));
        assert.deepEqual(data, payload, `length ${length}, chunks ${chunks}`);
        assert.deepEqual(others, [{ type: "end", length }], `length ${length}, chunks ${chunks}`);
      }
    }
  });

  test("a zero mask leaves the payload as it is; pieces are views into the chunk", () => {
    const payload = randomBytes(1000);
    const chunk = clientFrame(Opcode.binary, payload, { mask: Buffer.alloc(4) });
    const views: Buffer[] = [];
    new FrameReader({
      data: (bytes) => views.push(bytes),
      messageEnd: () => {},
      text: () => {},
      close: () => {},
      ping: () => {},
      error: () => assert.fail("no error expected"),
    }).push(chunk);
    assert.equal(views.length, 1);
    assert.equal(views[0].buffer, chunk.buffer);
    assert.deepEqual(views[0], payload);
  });

  test("fragmented messages, control frames between fragments, and an empty message", () => {
    const a = randomBytes(300);
    const b = randomBytes(70_000);
    const input = Buffer.concat([
      clientFrame(Opcode.binary, a, { fin: false }),
      clientFrame(Opcode.ping, Buffer.from("are you there")),
      clientFrame(Opcode.continuation, b),
      clientFrame(Opcode.pong, Buffer.from("ignored")),
      clientFrame(Opcode.binary, Buffer.alloc(0)),
      clientFrame(Opcode.close, closePayload(1000, "bye")),
      clientFrame(Opcode.binary, Buffer.from("after the close: never read")),
    ]);
    for (const chunks of [[], [5, 300, 20, 1, 1, 1000]]) {
      const { data, others } = summary(read(input, chunks));
      assert.deepEqual(data, Buffer.concat([a, b]));
      assert.deepEqual(others, [
        { type: "ping", payload: Buffer.from("are you there") },
        { type: "end", length: a.length + b.length },
        { type: "end", length: 0 },
        { type: "close", code: 1000, reason: "bye" },
      ]);
    }
  });

  test("a close frame without a code; a text message is reported and skipped", () => {
    assert.deepEqual(read(clientFrame(Opcode.close, Buffer.alloc(0))), [
      { type: "close", code: undefined, reason: "" },
    ]);
    const input = Buffer.concat([
      clientFrame(Opcode.text, Buffer.from("not "), { fin: false }),
      clientFrame(Opcode.continuation, Buffer.from("relayed")),
      clientFrame(Opcode.close, closePayload(1000, "")),
    ]);
    assert.deepEqual(read(input), [{ type: "text" }, { type: "close", code: 1000, reason: "" }]);
  });

  test("protocol violations are errors with their close code, and nothing after them is read", () => {
    const unmasked = Buffer.concat([frameHeader(Opcode.binary, 3), Buffer.from("abc")]);
    const rsv = clientFrame(Opcode.binary, Buffer.from("x"));
    rsv[0] |= 0x40;
    const huge = Buffer.from([0x82, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    const cases: [string, Buffer, number][] = [
      ["unmasked", unmasked, 1002],
      ["RSV bit", rsv, 1002],
      ["unknown opcode", clientFrame(0x3, Buffer.from("x")), 1002],
      ["fragmented ping", clientFrame(Opcode.ping, Buffer.alloc(1), { fin: false }), 1002],
      ["long ping", clientFrame(Opcode.ping, Buffer.alloc(126)), 1002],
      ["lone continuation", clientFrame(Opcode.continuation, Buffer.from("x")), 1002],
      [
        "new message inside one",
        Buffer.concat([
          clientFrame(Opcode.binary, Buffer.from("x"), { fin: false }),
          clientFrame(Opcode.binary, Buffer.from("y")),
        ]),
        1002,
      ],
      ["close code 1005", clientFrame(Opcode.close, closePayload(1005, "")), 1002],
      ["one-byte close", clientFrame(Opcode.close, Buffer.from([3])), 1002],
      ["close reason not UTF-8", clientFrame(Opcode.close, Buffer.from([0x03, 0xe8, 0xff])), 1007],
      ["length over 2^53", huge, 1009],
    ];
    for (const [name, input, code] of cases) {
      const events = read(Buffer.concat([input, clientFrame(Opcode.binary, Buffer.from("later"))]));
      const errors = events.filter((e) => e.type === "error");
      assert.deepEqual(errors, [{ type: "error", code }], name);
      assert.ok(!events.some((e) => e.type === "data" && e.bytes.toString() === "later"), name);
    }
  });

  test("server frame headers and close payloads", () => {
    assert.deepEqual(frameHeader(Opcode.binary, 5), Buffer.from([0x82, 5]));
    assert.deepEqual(frameHeader(Opcode.binary, 126), Buffer.from([0x82, 126, 0, 126]));
    assert.deepEqual(
      frameHeader(Opcode.close, 70_000),
      Buffer.from([0x88, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70]),
    );
    assert.deepEqual(closePayload(1000, "eof"), Buffer.from([0x03, 0xe8, 0x65, 0x6f, 0x66]));
    assert.equal(closePayload(1011, "x".repeat(300)).length, 125);
    assert.equal(closePayload(undefined, "ignored").length, 0);
  });
});
