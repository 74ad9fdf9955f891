import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { test } from "node:test";
import { releaseReadBuffer } from "./read-buffer.ts";

test("a chunk that is its whole ArrayBuffer is released; views into larger buffers are left alone", () => {
  const whole = Buffer.from(new ArrayBuffer(16));
  releaseReadBuffer(whole);
  assert.equal(whole.buffer.detached, true);
  assert.equal(whole.length, 0);
  releaseReadBuffer(whole); // twice is harmless

  const shared = new ArrayBuffer(16);
  const view = Buffer.from(shared, 4, 8);
  releaseReadBuffer(view);
  assert.equal(shared.detached, false);
  assert.equal(view.length, 8);

  // Small Buffers come from Node's shared pool.
  const pooled = Buffer.from("pooled");
  releaseReadBuffer(pooled);
  assert.equal(pooled.toString(), "pooled");
});

test("socket reads are chunks of their own, so releasing them after use is safe", async () => {
  const server = net.createServer((socket) => socket.end(Buffer.alloc(256 * 1024, 1)));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const socket = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    await once(socket, "end");
    const buffers = new Set(chunks.map((chunk) => chunk.buffer));
    assert.equal(buffers.size, chunks.length, "no two reads share an ArrayBuffer");
    assert.equal(
      chunks.reduce((sum, chunk) => sum + chunk.length, 0),
      256 * 1024,
    );
    for (const chunk of chunks) releaseReadBuffer(chunk);
    assert.ok(
      chunks.every((chunk) => chunk.length === 0),
      "every chunk is empty once released",
    );
  } finally {
    server.close();
  }
});
