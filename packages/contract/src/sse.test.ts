import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeSseComment, encodeSseEvent, readSseStream, type SseMessage, SseParser } from "./sse.ts";

function parseAll(chunks: string[]): SseMessage[] {
  const parser = new SseParser();
  const out: SseMessage[] = [];
  for (const chunk of chunks) out.push(...parser.push(chunk));
  parser.end();
  return out;
}

async function collect(source: AsyncIterable<Uint8Array | string>): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of readSseStream(source)) out.push(message);
  return out;
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

// Every line-ending form, a BOM, comments, a multi-line data field, ids, a field without a colon, a value
// without the optional space, an unknown field, a retry, and an event with no data (never dispatched).
const STREAM =
  "\uFEFF: hello\r\n" +
  "event: output\r\n" +
  'data: {"line":"a"}\r\n' +
  "id: 7\r\n" +
  "\r\n" +
  "data: first\n" +
  "data:second\n" +
  "data:  third\n" +
  "unknown: x\n" +
  "\n" +
  "event: only-a-name\r" +
  "\r" +
  "retry: 1500\r" +
  "id: bad\u0000id\r" +
  "data\r" +
  "\r\n" +
  "event: eof\n" +
  "data: {}\n" +
  "\n" +
  "data: never dispatched\n";

const EXPECTED: SseMessage[] = [
  { event: "output", data: '{"line":"a"}', id: "7" },
  { event: "message", data: "first\nsecond\n third", id: "7" },
  { event: "message", data: "", id: "7" },
  { event: "eof", data: "{}", id: "7" },
];

test("parses a stream fed whole", () => {
  assert.deepEqual(parseAll([STREAM]), EXPECTED);
});

test("parses a stream split at every position", () => {
  for (let i = 0; i <= STREAM.length; i++) {
    assert.deepEqual(parseAll([STREAM.slice(0, i), STREAM.slice(i)]), EXPECTED, `split at ${i}`);
  }
});

test("parses a stream split at every pair of positions", () => {
  for (let i = 0; i <= STREAM.length; i++) {
    for (let j = i; j <= STREAM.length; j++) {
      const chunks = [STREAM.slice(0, i), STREAM.slice(i, j), STREAM.slice(j)];
      assert.deepEqual(parseAll(chunks), EXPECTED, `split at ${i} and ${j}`);
    }
  }
});

test("parses a stream fed one character at a time", () => {
  assert.deepEqual(parseAll([...STREAM]), EXPECTED);
});

test("keeps the retry field", () => {
  const parser = new SseParser();
  parser.push(STREAM);
  assert.equal(parser.retry, 1500);
});

test("a lone CR followed by LF in the next chunk is one line break, two CRs are two", () => {
  assert.deepEqual(parseAll(["data: x\r", "\n\r", "\n"]), [{ event: "message", data: "x", id: "" }]);
  assert.deepEqual(parseAll(["data: x\r\r"]), [{ event: "message", data: "x", id: "" }]);
  assert.deepEqual(parseAll(["data: x\n\rdata: y\n\n"]), [
    { event: "message", data: "x", id: "" },
    { event: "message", data: "y", id: "" },
  ]);
});

test("a BOM is stripped only at the start of the stream", () => {
  assert.deepEqual(parseAll(["", "\uFEFFdata: a\n\n"]), [{ event: "message", data: "a", id: "" }]);
  // Later, U+FEFF is part of the field name, so the line is an unknown field.
  assert.deepEqual(parseAll(["data: a\n\n\uFEFFdata: b\n\n"]), [{ event: "message", data: "a", id: "" }]);
});

test("UTF-8 split at every byte position decodes correctly", async () => {
  const events = [
    encodeSseEvent({ event: "output", data: { line: "héllo wörld 🚀 ✓", timestamp: 1 } }),
    encodeSseEvent({ data: { exit_code: 0 } }),
  ];
  const bytes = new TextEncoder().encode(events.join(""));
  const expected = [
    { event: "output", data: JSON.stringify({ line: "héllo wörld 🚀 ✓", timestamp: 1 }), id: "" },
    { event: "message", data: '{"exit_code":0}', id: "" },
  ];
  for (let i = 0; i <= bytes.length; i++) {
    const got = await collect(fromArray([bytes.subarray(0, i), bytes.subarray(i)]));
    assert.deepEqual(got, expected, `split at byte ${i}`);
  }
});

test("an unterminated last event is dropped", async () => {
  assert.deepEqual(await collect(fromArray(["data: a\n\ndata: b\n"])), [
    { event: "message", data: "a", id: "" },
  ]);
  assert.deepEqual(await collect(fromArray(["data: a\n\ndata: b"])), [
    { event: "message", data: "a", id: "" },
  ]);
});

test("encodes plain data frames, named events, ids and retry", () => {
  assert.equal(encodeSseEvent({ data: { pid: 1 } }), 'data: {"pid":1}\n\n');
  assert.equal(encodeSseEvent({ event: "eof", data: {} }), "event: eof\ndata: {}\n\n");
  assert.equal(
    encodeSseEvent({ event: "output", data: "x", id: "3", retry: 10 }),
    'event: output\nid: 3\nretry: 10\ndata: "x"\n\n',
  );
});

test("encoded events round-trip, whatever their data holds", () => {
  const values: unknown[] = [
    { line: "a\nb\r\nc\rd", timestamp: 0 },
    "line\u2028sep\u2029para",
    ["\u0000", "\t", ": not a comment"],
    { nested: { deep: [1, 2, { x: null }] } },
    42,
    null,
    "",
  ];
  for (const value of values) {
    const [message] = parseAll([encodeSseEvent({ event: "output", data: value, id: "9" })]);
    assert.equal(message.event, "output");
    assert.equal(message.id, "9");
    assert.deepEqual(JSON.parse(message.data), value);
  }
});

test("the encoder rejects what would break the framing", () => {
  assert.throws(() => encodeSseEvent({ event: "a\nb", data: 1 }), RangeError);
  assert.throws(() => encodeSseEvent({ event: "a\rb", data: 1 }), RangeError);
  assert.throws(() => encodeSseEvent({ event: "", data: 1 }), RangeError);
  assert.throws(() => encodeSseEvent({ id: "a\nb", data: 1 }), RangeError);
  assert.throws(() => encodeSseEvent({ id: "a\u0000b", data: 1 }), RangeError);
  assert.throws(() => encodeSseEvent({ retry: -1, data: 1 }), RangeError);
  assert.throws(() => encodeSseEvent({ data: undefined }), TypeError);
});

test("comments, including multi-line ones, dispatch nothing", () => {
  assert.equal(encodeSseComment("keepalive"), ": keepalive\n\n");
  assert.equal(encodeSseComment(), ":\n\n");
  const stream = `${encodeSseComment("a\nb\r\nc")}${encodeSseComment()}${encodeSseEvent({ data: 1 })}`;
  assert.deepEqual(parseAll([stream]), [{ event: "message", data: "1", id: "" }]);
});
