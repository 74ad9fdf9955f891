import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import type { WebSocket } from "ws";
import type { RunningDaemon } from "../daemon.ts";
import { type DaemonTestClient, startTestDaemon } from "../testing.ts";
import { clientFrame, closed, mustOpenWs, openWs, serverFrames } from "../websocket-testing.ts";

/**
 * Opens a tunnel with a hand-written handshake on a plain socket, for frames `ws` will not send (unmasked ones);
 * resolves with the socket and the status line of the answer, and what followed the answer's head.
 */
async function rawUpgrade(
  client: DaemonTestClient,
  pathAndQuery: string,
  key = randomBytes(16).toString("base64"),
): Promise<{ socket: net.Socket; status: string; rest: Buffer }> {
  const url = new URL(client.baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  await once(socket, "connect");
  const headers = {
    ...client.headersFor("GET", pathAndQuery),
    host: url.host,
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": key,
  };
  socket.write(
    `GET ${pathAndQuery} HTTP/1.1\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`,
  );
  let received = Buffer.alloc(0);
  while (received.indexOf("\r\n\r\n") < 0) {
    const [chunk] = (await once(socket, "data")) as [Buffer];
    received = Buffer.concat([received, chunk]);
  }
  socket.pause();
  const end = received.indexOf("\r\n\r\n");
  return {
    socket,
    status: received.subarray(0, received.indexOf("\r\n")).toString(),
    rest: received.subarray(end + 4),
  };
}

/** Collects every binary frame of a WebSocket until it closes. */
function collect(ws: WebSocket): Promise<{ data: Buffer; code: number; reason: string }> {
  const chunks: Buffer[] = [];
  ws.on("message", (data: Buffer) => chunks.push(data));
  return closed(ws).then(({ code, reason }) => ({ data: Buffer.concat(chunks), code, reason }));
}

describe("TCP tunnels", () => {
  let daemon: RunningDaemon;
  let client: DaemonTestClient;
  let echo: net.Server;
  let echoPort: number;
  /** A server that reads to EOF, then answers the SHA-256 of what it read and closes. */
  let digest: net.Server;
  let digestPort: number;

  before(async () => {
    ({ daemon, client } = await startTestDaemon());
    echo = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.pipe(socket);
    });
    digest = net.createServer({ allowHalfOpen: true }, (socket) => {
      socket.on("error", () => {});
      const hash = createHash("sha256");
      socket.on("data", (chunk) => hash.update(chunk));
      socket.on("end", () => socket.end(hash.digest("hex")));
    });
    for (const server of [echo, digest]) {
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
    }
    echoPort = (echo.address() as net.AddressInfo).port;
    digestPort = (digest.address() as net.AddressInfo).port;
  });
  after(async () => {
    echo?.close();
    digest?.close();
    await daemon?.close();
  });

  test("binary frames are relayed verbatim both ways", async () => {
    const ws = await mustOpenWs(client, `/api/v1/tunnels/tcp?port=${echoPort}`);
    const received: Buffer[] = [];
    ws.on("message", (data: Buffer, isBinary) => {
      assert.ok(isBinary);
      received.push(data);
    });
    const payload = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    ws.send(payload);
    while (Buffer.concat(received).length < payload.length) await once(ws, "message");
    assert.deepEqual(Buffer.concat(received), payload);
    ws.close();
    assert.equal((await closed(ws)).code, 1005);
  });

  test("bad ports are 400 INVALID_PORT; unsigned 401; nothing listening 502 CONNECTION_FAILED", async () => {
    for (const query of ["", "?port=", "?port=0", "?port=abc", "?port=65536", "?port=-1", "?port=1.5"]) {
      const result = await openWs(client, `/api/v1/tunnels/tcp${query}`);
      assert.ok(!result.ok, query);
      assert.equal(result.status, 400, query);
      assert.equal(result.json?.code, "INVALID_PORT", query);
    }
    const unsigned = await openWs(client, `/api/v1/tunnels/tcp?port=${echoPort}`, { auth: false });
    assert.ok(!unsigned.ok);
    assert.equal(unsigned.status, 401);
    assert.equal(unsigned.json?.code, "UNAUTHORIZED");
    const badSignature = await openWs(client, `/api/v1/tunnels/tcp?port=${echoPort}`, { auth: "bad" });
    assert.ok(!badSignature.ok);
    assert.equal(badSignature.status, 401);
    // A port where nothing listens: take a free port and close it.
    const probe = net.createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const freePort = (probe.address() as net.AddressInfo).port;
    await new Promise((done) => probe.close(done));
    const refused = await openWs(client, `/api/v1/tunnels/tcp?port=${freePort}`);
    assert.ok(!refused.ok);
    assert.equal(refused.status, 502);
    assert.equal(refused.json?.code, "CONNECTION_FAILED");
    // Plain HTTP GETs, no upgrade: the same answers to bad input, and 426 where a tunnel would have opened.
    for (const query of ["", "?port=0", "?port=abc"]) {
      const plain = await client.request("GET", `/api/v1/tunnels/tcp${query}`);
      assert.equal(plain.status, 400, query);
      assert.equal((plain.json as { code: string }).code, "INVALID_PORT", query);
    }
    const plainUnsigned = await client.request("GET", `/api/v1/tunnels/tcp?port=0`, { auth: false });
    assert.equal(plainUnsigned.status, 401);
    const plain = await client.request("GET", `/api/v1/tunnels/tcp?port=${echoPort}`);
    assert.equal(plain.status, 426);
    assert.equal((plain.json as { code: string }).code, "UPGRADE_REQUIRED");
    assert.equal((await client.request("GET", `/api/v1/tunnels/tcp?port=${freePort}`)).status, 502);
  });

  test("a text frame closes the tunnel with 1003", async () => {
    const ws = await mustOpenWs(client, `/api/v1/tunnels/tcp?port=${echoPort}`);
    ws.send("text is not relayed");
    const { code } = await closed(ws);
    assert.equal(code, 1003);
  });

  test("half-close: an empty frame sends FIN; the answer comes back, then close 1000 on the sandbox's FIN", async () => {
    const ws = await mustOpenWs(client, `/api/v1/tunnels/tcp?port=${digestPort}`);
    const result = collect(ws);
    // One large frame: the TCP write buffer is full when the FIN goes out, and the close must still complete.
    const payload = randomBytes(8 * 1024 * 1024);
    ws.send(payload);
    ws.send(Buffer.alloc(0));
    const started = Date.now();
    const { data, code, reason } = await result;
    assert.ok(Date.now() - started < 5000, "the close handshake completed promptly");
    assert.equal(data.toString("utf8"), createHash("sha256").update(payload).digest("hex"));
    assert.equal(code, 1000);
    assert.equal(reason, "eof");
  });

  test("the sandbox side closing first closes the WebSocket 1000 after its last bytes", async () => {
    const server = net.createServer((socket) => socket.end(Buffer.alloc(2 * 1024 * 1024, 7)));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      // The sandbox side writes at once: its first bytes may arrive with the handshake.
      let result: ReturnType<typeof collect> | undefined;
      await mustOpenWs(
        client,
        `/api/v1/tunnels/tcp?port=${(server.address() as net.AddressInfo).port}`,
        {},
        (ws) => {
          result = collect(ws);
        },
      );
      assert.ok(result);
      const { data, code } = await result;
      assert.equal(data.length, 2 * 1024 * 1024);
      assert.ok(data.every((b) => b === 7));
      assert.equal(code, 1000);
    } finally {
      server.close();
    }
  });

  test("a client close frame ends the TCP connection toward the sandbox", async () => {
    let ended: () => void = () => {};
    const sawEnd = new Promise<void>((resolve) => {
      ended = resolve;
    });
    const server = net.createServer({ allowHalfOpen: true }, (socket) => {
      socket.resume();
      socket.on("end", () => {
        ended();
        socket.end();
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const ws = await mustOpenWs(
        client,
        `/api/v1/tunnels/tcp?port=${(server.address() as net.AddressInfo).port}`,
      );
      ws.send(Buffer.from("bye"));
      ws.close(1000);
      await sawEnd;
    } finally {
      server.close();
    }
  });

  test("a ping is answered with a pong carrying its payload", async () => {
    const ws = await mustOpenWs(client, `/api/v1/tunnels/tcp?port=${echoPort}`);
    ws.ping(Buffer.from("hello"));
    const [payload] = (await once(ws, "pong")) as [Buffer];
    assert.equal(payload.toString(), "hello");
    ws.close();
    await closed(ws);
  });

  test("a bad handshake is 400; a client that breaks the protocol gets close 1002", async () => {
    const path = `/api/v1/tunnels/tcp?port=${echoPort}`;
    const bad = await rawUpgrade(client, path, "not-a-key");
    assert.match(bad.status, /^HTTP\/1.1 400 /);
    bad.socket.destroy();

    const { socket, status, rest } = await rawUpgrade(client, path);
    assert.match(status, /^HTTP\/1.1 101 /);
    assert.equal(rest.length, 0);
    // An unmasked binary frame: clients must mask.
    socket.write(Buffer.from([0x82, 0x03, 0x61, 0x62, 0x63]));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    await once(socket, "end");
    const { frames } = serverFrames(Buffer.concat(chunks));
    assert.equal(frames.length, 1);
    assert.equal(frames[0].opcode, 0x8, "a close frame");
    assert.equal(frames[0].payload.readUInt16BE(0), 1002);
    socket.destroy();
  });

  test("frames split anywhere, masked or not, fragmented or not, arrive whole and in order", async () => {
    const { socket } = await rawUpgrade(client, `/api/v1/tunnels/tcp?port=${echoPort}`);
    const sent: Buffer[] = [];
    const wire: Buffer[] = [];
    for (let i = 0; i < 40; i++) {
      const payload = randomBytes(1 + ((i * 7919) % 70_000));
      sent.push(payload);
      // Every fourth frame leaves its message open and the next continues it.
      wire.push(
        clientFrame(i % 4 === 2 ? 0x0 : 0x2, payload, {
          fin: i % 4 !== 1,
          mask: i % 3 === 0 ? Buffer.alloc(4) : randomBytes(4),
        }),
      );
    }
    const bytes = Buffer.concat(wire);
    const expected = Buffer.concat(sent);
    const echoed: Buffer[] = [];
    let echoedLength = 0;
    let pending: Buffer = Buffer.alloc(0);
    const done = new Promise<void>((resolve) => {
      socket.on("data", (chunk: Buffer) => {
        const { frames, rest } = serverFrames(Buffer.concat([pending, chunk]));
        pending = rest;
        for (const frame of frames) {
          assert.equal(frame.opcode, 0x2);
          echoed.push(frame.payload);
          echoedLength += frame.payload.length;
        }
        if (echoedLength >= expected.length) resolve();
      });
    });
    socket.resume();
    for (let at = 0, step = 1; at < bytes.length; at += step, step = 1 + ((step * 31 + 7) % 9000)) {
      socket.write(bytes.subarray(at, at + step));
    }
    await done;
    assert.deepEqual(Buffer.concat(echoed), expected);
    socket.destroy();
  });

  test("large transfers keep every byte in order both ways (64 MiB echo)", async () => {
    const ws = await mustOpenWs(client, `/api/v1/tunnels/tcp?port=${echoPort}`);
    const total = 64 * 1024 * 1024;
    const block = randomBytes(256 * 1024);
    const sent = createHash("sha256");
    const got = createHash("sha256");
    let received = 0;
    const done = new Promise<void>((resolve) =>
      ws.on("message", (data: Buffer) => {
        got.update(data);
        received += data.length;
        if (received >= total) resolve();
      }),
    );
    for (let offset = 0; offset < total; offset += block.length) {
      sent.update(block);
      ws.send(block);
      if (ws.bufferedAmount > 4 * 1024 * 1024) await new Promise((r) => setTimeout(r, 1));
    }
    await done;
    assert.equal(received, total);
    assert.equal(got.digest("hex"), sent.digest("hex"));
    ws.close();
  });
});
