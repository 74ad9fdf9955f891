import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import net from "node:net";
import { test } from "node:test";
import { readChunks, releaseReadBuffer } from "./socket-reads.ts";

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

/** Every test below waits for socket events: one that never comes fails the test instead of hanging the run. */
const WAIT = { timeout: 20_000 };

/** A server whose accepted connections go to `onConnection`, and a client connected to it. */
async function connectedPair(
  onConnection: (socket: net.Socket) => void,
  serverOptions: net.ServerOpts = {},
): Promise<{ server: net.Server; client: net.Socket }> {
  const server = net.createServer(serverOptions, onConnection);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const client = net.connect({
    port: (server.address() as net.AddressInfo).port,
    host: "127.0.0.1",
    allowHalfOpen: true,
  });
  await once(client, "connect");
  return { server, client };
}

test(
  "readChunks: a taken-over connection relays 64 MiB intact through a stalling writer, in reads over 64 KiB",
  WAIT,
  async () => {
    const payload = randomBytes(64 * 1024 * 1024);
    const sizes: number[] = [];
    let original: net.Socket | undefined;
    let taken: net.Socket | undefined;
    const { server, client } = await connectedPair((accepted) => {
      original = accepted;
      // Echo: every chunk is written back while the client is not reading, so writes complete late and the
      // buffers they hold must not be read into meanwhile.
      taken = readChunks(accepted, (chunk, hold) => {
        sizes.push(chunk.length);
        return taken?.write(chunk, hold());
      });
      taken.on("drain", () => taken?.resume());
      taken.on("end", () => taken?.end());
    });
    try {
      client.pause();
      setTimeout(() => client.resume(), 300);
      const received = createHash("sha256");
      let length = 0;
      client.on("data", (chunk: Buffer) => {
        received.update(chunk);
        length += chunk.length;
      });
      client.end(payload);
      await once(client, "end");
      assert.equal(length, payload.length);
      assert.equal(received.digest("hex"), createHash("sha256").update(payload).digest("hex"));
      assert.notEqual(taken, original, "a plain TCP socket is taken over by a new one");
      assert.equal(original?.destroyed, true);
      assert.ok(Math.max(...sizes) > 64 * 1024, `reads of up to ${Math.max(...sizes)} bytes`);
    } finally {
      client.destroy();
      server.close();
    }
  },
);

test(
  "readChunks: bytes buffered before the takeover come first, and a socket past its EOF still ends",
  WAIT,
  async () => {
    for (const withEof of [false, true]) {
      let resolveResult: (value: { text: string; ended: boolean }) => void = () => {};
      const result = new Promise<{ text: string; ended: boolean }>((resolve) => {
        resolveResult = resolve;
      });
      const { server, client } = await connectedPair(
        (accepted) => {
          // Not read for a while: what the client sends waits in the socket.
          setTimeout(() => {
            let text = "";
            const socket = readChunks(accepted, (chunk) => {
              text += chunk.toString();
              return undefined;
            });
            socket.on("end", () => {
              resolveResult({ text, ended: true });
              socket.end();
            });
          }, 100);
        },
        { pauseOnConnect: false, allowHalfOpen: true },
      );
      try {
        client.write("first ");
        if (withEof) client.end("last");
        else setTimeout(() => client.end("last"), 200);
        const { text, ended } = await result;
        assert.equal(text, "first last", `with EOF before the takeover: ${withEof}`);
        assert.ok(ended);
      } finally {
        client.destroy();
        server.close();
      }
    }
  },
);

test("readChunks: returning false pauses reading until resume()", WAIT, async () => {
  let chunks = 0;
  let next: () => void = () => {};
  const chunkRead = () =>
    new Promise<void>((resolve) => {
      next = resolve;
    });
  let socket: net.Socket | undefined;
  let accepted: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    accepted = resolve;
  });
  const { server, client } = await connectedPair((connection) => {
    socket = readChunks(connection, () => {
      chunks++;
      next();
      return false;
    });
    accepted();
  });
  try {
    await ready;
    let read = chunkRead();
    client.write("a");
    await read;
    read = chunkRead();
    client.write("b");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(chunks, 1, "paused after the first chunk");
    socket?.resume();
    await read;
    assert.equal(chunks, 2);
  } finally {
    client.destroy();
    server.close();
  }
});

test("readChunks: the server that accepted a taken-over connection waits for it to close", WAIT, async () => {
  let taken: net.Socket | undefined;
  let accepted: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    accepted = resolve;
  });
  const { server, client } = await connectedPair((connection) => {
    taken = readChunks(connection, () => undefined);
    accepted();
  });
  try {
    await ready;
    let closed = false;
    const serverClosed = new Promise<void>((resolve) =>
      server.close(() => {
        closed = true;
        resolve();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(closed, false, "the connection is still counted");
    taken?.destroy();
    await serverClosed;
  } finally {
    client.destroy();
  }
});

test(
  "readChunks: a held chunk keeps its bytes while reading goes on; released buffers are read into again",
  WAIT,
  async () => {
    let changed = 0;
    let chunks = 0;
    const buffers = new Set<ArrayBufferLike>();
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const { server, client } = await connectedPair((accepted) => {
      const socket = readChunks(accepted, (chunk, hold) => {
        chunks++;
        buffers.add(chunk.buffer);
        const copy = Buffer.from(chunk);
        const release = hold();
        setTimeout(() => {
          if (!chunk.equals(copy)) changed++;
          release();
        }, 5);
        return undefined;
      });
      socket.on("end", () => setTimeout(done, 20));
    });
    try {
      const block = randomBytes(64 * 1024);
      for (let i = 0; i < 256; i++) {
        if (!client.write(block)) await once(client, "drain");
      }
      client.end();
      await finished;
      assert.equal(changed, 0, "no held chunk was overwritten");
      assert.ok(buffers.size < chunks, `${chunks} reads went into ${buffers.size} buffers`);
    } finally {
      client.destroy();
      server.close();
    }
  },
);

test(
  "readChunks: a quiet connection reads into a 4 KiB buffer, a burst into 256 KiB ones",
  WAIT,
  async () => {
    const reads: { length: number; capacity: number }[] = [];
    let total = 0;
    let waiting: { bytes: number; resolve: () => void } | undefined;
    const received = (bytes: number) =>
      new Promise<void>((resolve) => {
        waiting = { bytes, resolve };
      });
    const { server, client } = await connectedPair((accepted) => {
      readChunks(accepted, (chunk) => {
        reads.push({ length: chunk.length, capacity: chunk.buffer.byteLength });
        total += chunk.length;
        if (waiting && total >= waiting.bytes) waiting.resolve();
        return undefined;
      });
    });
    try {
      let arrived = received(4);
      client.write("ping");
      await arrived;
      assert.deepEqual(reads, [{ length: 4, capacity: 4096 }]);
      arrived = received(4 + 4 * 1024 * 1024);
      client.write(randomBytes(4 * 1024 * 1024));
      await arrived;
      assert.ok(reads.some((read) => read.capacity === 256 * 1024 && read.length > 64 * 1024));
    } finally {
      client.destroy();
      server.close();
    }
  },
);
