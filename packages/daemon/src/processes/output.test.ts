import assert from "node:assert/strict";
import { isAscii } from "node:buffer";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { OutputStream } from "@svc/contract";
import { type OutputBlock, type OutputCursor, OutputStore, type OutputStoreOptions } from "./output.ts";
import {
  FOLLOW_EOF_FRAME,
  followEncoder,
  lineListEncoder,
  type OutputEncoder,
  runEncoder,
} from "./output-frames.ts";

function encodeAll(encoder: OutputEncoder, blocks: OutputBlock[]): string {
  let out = "";
  encoder.encode(blocks, (text) => {
    out += text;
  });
  return out;
}

const textBlock = (stream: OutputStream, timestamp: number, text: string): OutputBlock => ({
  stream,
  timestamp,
  text,
  ascii: isAscii(Buffer.from(text)),
});

const dir = mkdtempSync(join(tmpdir(), "svc-output-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function store(options: Partial<OutputStoreOptions> = {}): OutputStore {
  return new OutputStore({
    spoolPath: join(dir, `${n++}.spool`),
    maxMemoryBytes: 1024 * 1024,
    maxLineBytes: 1024 * 1024,
    maxSpoolBytes: 1024 * 1024 * 1024,
    ...options,
  });
}

async function drain(cursor: OutputCursor): Promise<{ stream: OutputStream; line: string }[]> {
  const out: { stream: OutputStream; line: string }[] = [];
  for (let blocks = await cursor.next(); blocks; blocks = await cursor.next()) {
    for (const block of blocks)
      for (const line of block.text.split("\n")) out.push({ stream: block.stream, line });
  }
  return out;
}

const lines = async (s: OutputStore, stream?: OutputStream) =>
  (await drain(s.cursor({ stream, snapshot: true }))).map((l) => l.line);

test("lines split on \\n, CRLF loses its CR, other CRs stay, the last line needs no newline", async () => {
  const s = store();
  s.write("stdout", Buffer.from("one\r\ntw"));
  s.write("stdout", Buffer.from("o\r"));
  s.write("stdout", Buffer.from("\nprogress 1%\rprogress 2%\n\n"));
  s.write("stdout", Buffer.from("tail without newline\r"));
  s.endStream("stdout");
  s.endStream("stderr");
  assert.deepEqual(await lines(s), ["one", "two", "progress 1%\rprogress 2%", "", "tail without newline\r"]);
  assert.equal(s.ended, true);
  await s.dispose();
});

test("stdout and stderr interleave in arrival order and can be read apart", async () => {
  const s = store();
  s.write("stdout", Buffer.from("o1\n"));
  s.write("stderr", Buffer.from("e1\ne2\n"));
  s.write("stdout", Buffer.from("o2\n"));
  s.endStream("stdout");
  s.endStream("stderr");
  assert.deepEqual(
    (await drain(s.cursor())).map((l) => `${l.stream}:${l.line}`),
    ["stdout:o1", "stderr:e1", "stderr:e2", "stdout:o2"],
  );
  assert.deepEqual(await lines(s, "stderr"), ["e1", "e2"]);
  assert.deepEqual(await lines(s, "stdout"), ["o1", "o2"]);
  await s.dispose();
});

test("a follower gets replay, then live lines, then the end", async () => {
  const s = store();
  s.write("stdout", Buffer.from("before\n"));
  const cursor = s.cursor();
  const reading = drain(cursor);
  await new Promise((done) => setTimeout(done, 10));
  s.write("stderr", Buffer.from("live\n"));
  s.write("stdout", Buffer.from("partial"));
  s.endStream("stdout");
  s.endStream("stderr");
  assert.deepEqual(
    (await reading).map((l) => l.line),
    ["before", "live", "partial"],
  );
  await s.dispose();
});

test("output beyond the memory limit is spooled; a reader from the start gets every line in order", async () => {
  const s = store({ maxMemoryBytes: 64 * 1024 });
  const early = s.cursor();
  const earlyLines = drain(early);
  const total = 100_000;
  let chunk = "";
  for (let i = 0; i < total; i++) {
    chunk += `line ${i} ${"x".repeat(i % 50)}\n`;
    if (chunk.length > 10_000 || i === total - 1) {
      if (!s.write(i % 3 === 0 ? "stderr" : "stdout", Buffer.from(chunk))) {
        await new Promise<void>((done) => s.onceFlowing(done));
      }
      chunk = "";
    }
    if (i % 20_000 === 0) await new Promise((done) => setImmediate(done));
  }
  assert.ok(s.spooledBytes > 1024 * 1024, `spooled ${s.spooledBytes}`);
  assert.ok(s.memoryBytes <= 2 * 64 * 1024 + 20_000, `memory ${s.memoryBytes}`);
  const late = s.cursor();
  const lateLines = drain(late);
  s.endStream("stdout");
  s.endStream("stderr");
  const expected = Array.from({ length: total }, (_, i) => `line ${i} ${"x".repeat(i % 50)}`);
  assert.deepEqual(
    (await lateLines).map((l) => l.line),
    expected,
  );
  assert.deepEqual(
    (await earlyLines).map((l) => l.line),
    expected,
  );
  await s.dispose();
  assert.equal(existsSync(join(dir, `${n - 1}.spool`)), false);
});

test("a 10 MB line and binary bytes come through whole", async () => {
  const s = store({ maxMemoryBytes: 1024 * 1024, maxLineBytes: 16 * 1024 * 1024 });
  const big = "y".repeat(10 * 1024 * 1024);
  for (let i = 0; i < big.length; i += 65536) s.write("stdout", Buffer.from(big.slice(i, i + 65536)));
  s.write("stdout", Buffer.from("\n"));
  s.write("stderr", Buffer.from([0x00, 0xff, 0x0a, 0x80, 0x41]));
  s.endStream("stdout");
  s.endStream("stderr");
  // Let the spool catch up, then read the big line back from it.
  await new Promise((done) => setTimeout(done, 100));
  const out = await lines(s);
  assert.equal(out.length, 3);
  assert.equal(out[0].length, big.length);
  assert.equal(out[0], big);
  assert.equal(out[1], "\u0000\udcff");
  assert.equal(out[2], "\udc80A");
  await s.dispose();
});

test("lines longer than the line limit are cut into pieces", async () => {
  const s = store({ maxLineBytes: 1000 });
  s.write("stdout", Buffer.from("z".repeat(2500)));
  s.endStream("stdout");
  s.endStream("stderr");
  assert.deepEqual(
    (await lines(s)).map((l) => l.length),
    [1000, 1000, 500],
  );
  await s.dispose();
});

test("past the spool limit the oldest output is dropped with a marker", async () => {
  const s = store({ maxMemoryBytes: 16 * 1024, maxSpoolBytes: 64 * 1024 });
  let dropped = "";
  const withDrop = new OutputStore({
    spoolPath: join(dir, `${n++}.spool`),
    maxMemoryBytes: 16 * 1024,
    maxLineBytes: 1024 * 1024,
    maxSpoolBytes: 64 * 1024,
    onDrop: (reason) => {
      dropped = reason;
    },
  });
  for (let i = 0; i < 10_000; i++) {
    withDrop.write("stdout", Buffer.from(`${i}\n`));
    if (i % 500 === 0) await new Promise((done) => setTimeout(done, 1));
  }
  withDrop.endStream("stdout");
  withDrop.endStream("stderr");
  assert.match(dropped, /limit/);
  const out = await lines(withDrop);
  assert.equal(out[0], "0");
  assert.equal(out.at(-1), "9999");
  const marker = out.findIndex((l) => l.startsWith("[svc-daemon: output dropped"));
  assert.ok(marker > 0, "marker present");
  // Lines before the marker and after it are each consecutive.
  const before = out.slice(0, marker).map(Number);
  const afterMarker = out.slice(marker + 1).map(Number);
  assert.deepEqual(
    before,
    before.map((_, i) => i),
  );
  assert.deepEqual(
    afterMarker,
    afterMarker.map((_, i) => afterMarker[0] + i),
  );
  assert.ok(withDrop.memoryBytes <= 2 * 16 * 1024);
  await withDrop.dispose();
  await s.dispose();
});

test("a closed cursor ends a pending read", async () => {
  const s = store();
  const cursor = s.cursor();
  const pending = cursor.next();
  cursor.close();
  assert.equal(await pending, undefined);
  await s.dispose();
});

test("frames match encodeSseEvent and JSON.stringify on the fast and the slow path", () => {
  const plain = textBlock("stdout", 5, "a\nb c");
  const special = textBlock("stderr", 6, 'q"\\\r\t\u0001\n');
  const escaped = textBlock("stderr", 7, "\udcff");
  const backslash = textBlock("stdout", 8, "a\\nb\n\\\n\\");
  const lineFrames = (block: typeof plain, event: string | undefined, withStream: boolean) =>
    block.text
      .split("\n")
      .map(
        (line) =>
          `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(
            withStream
              ? { line, timestamp: block.timestamp, stream: block.stream }
              : { line, timestamp: block.timestamp },
          )}\n\n`,
      )
      .join("");
  for (const block of [plain, special, escaped, backslash]) {
    assert.equal(encodeAll(runEncoder(), [block]), lineFrames(block, undefined, true));
    assert.equal(encodeAll(followEncoder(true), [block]), lineFrames(block, "output", true));
    assert.equal(encodeAll(followEncoder(false), [block]), lineFrames(block, "output", false));
  }
  assert.equal(
    `[${encodeAll(lineListEncoder(), [plain, special, escaped, backslash])}]`,
    JSON.stringify(["a", "b c", 'q"\\\r\t\u0001', "", "\udcff", "a\\nb", "\\", "\\"]),
  );
  // Large blocks are encoded in pieces of whole lines, in chunks of bounded size, with nothing lost.
  const lines = Array.from({ length: 20_000 }, (_, i) => (i % 7 === 0 ? `q"${i}` : `line ${i}`));
  const big = [
    textBlock("stdout", 9, lines.slice(0, 10_000).join("\n")),
    textBlock("stderr", 10, lines.slice(10_000).join("\n")),
  ];
  const chunks: string[] = [];
  lineListEncoder().encode(big, (text) => chunks.push(text));
  assert.ok(chunks.length > 2 && chunks.every((c) => c.length < 128 * 1024));
  assert.deepEqual(JSON.parse(`[${chunks.join("")}]`), lines);
  const frames = encodeAll(followEncoder(true), big);
  assert.equal(frames, big.map((b) => lineFrames(b, "output", true)).join(""));
  for (const text of [
    "",
    "\n",
    "\n\n",
    "x\n",
    "\nx",
    "a".repeat(200_000),
    `${"b".repeat(70_000)}\n${"c".repeat(70_000)}`,
  ]) {
    const block = textBlock("stdout", 11, text);
    assert.equal(
      encodeAll(followEncoder(false), [block]),
      lineFrames(block, "output", false),
      JSON.stringify(text.slice(0, 20)),
    );
  }
  assert.equal(FOLLOW_EOF_FRAME, "event: eof\ndata: {}\n\n");
});
