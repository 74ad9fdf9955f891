import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "@svc/daemon";
import { Client, type Sandbox, type SvcError } from "@svc/sdk";
import { WebSocket } from "ws";
import { startHostSandbox } from "../host-sandbox.testing.ts";
import { startTestServer, type TestServer } from "../testing.ts";

/**
 * PTY and TCP tunnels end to end: SDK → proxy (key → project → sandbox, signed forwarded auth on the upgrade) →
 * a real daemon on this host → a PTY, or a TCP echo server on 127.0.0.1.
 */
describe("PTY and tunnels through the proxy", () => {
  let server: TestServer;
  let daemon: RunningDaemon;
  let sandbox: Sandbox;
  let echo: net.Server;
  let echoPort: number;

  before(async () => {
    server = await startTestServer({ executor: "none" });
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const host = await startHostSandbox(server, { name: "pty-tunnels" });
    daemon = host.daemon;
    sandbox = await client.sandboxes.get(host.id);
    echo = net.createServer({ allowHalfOpen: true }, (socket) => {
      socket.on("error", () => {});
      socket.pipe(socket);
    });
    echo.listen(0, "127.0.0.1");
    await once(echo, "listening");
    echoPort = (echo.address() as net.AddressInfo).port;
    await sandbox.refresh();
  });
  after(async () => {
    echo?.close();
    await daemon?.close();
    await server?.stop();
  });

  test("sandbox.pty(): echo, resize, exit code; reconnect replays", async () => {
    const term = await sandbox.pty({ command: "sh", rows: 30, cols: 90, env: { PS1: "$ " } });
    let output = "";
    term.onData((data) => {
      output += Buffer.from(data).toString("utf8");
    });
    const waitFor = async (text: string) => {
      for (let i = 0; i < 200 && !output.includes(text); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(output.includes(text), `expected ${text} in ${JSON.stringify(output)}`);
    };
    term.write("stty size\n");
    await waitFor("30 90");
    term.resize(100, 40);
    term.write("stty size; echo mark-$((6*7))\n");
    await waitFor("mark-42");
    assert.ok(output.includes("40 100"));
    term.close();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await term.info()).status, "running");
    output = "";
    await term.reconnect();
    await waitFor("mark-42");
    term.write("exit 5\n");
    assert.equal(await term.exited, 5);
  });

  test("the PTY WebSocket refuses a bad token with 403 through the proxy", async () => {
    const term = await sandbox.pty({ command: "sleep", args: ["30"] });
    try {
      const ws = new WebSocket(
        `ws://127.0.0.1:${server.proxyPort}/api/v1/pty/${term.sessionId}/ws?token=wrong`,
        { headers: { authorization: `Bearer ${server.apiKey}`, "x-svc-sandbox-id": sandbox.id } },
      );
      ws.on("error", () => {});
      const [req, res] = await once(ws, "unexpected-response");
      assert.equal(res.statusCode, 403);
      res.resume();
      req.destroy();
    } finally {
      await term.kill();
    }
  });

  test("sandbox.tunnel(): a stream with half-close, and a local listener, to a TCP echo server", async () => {
    const t0 = Date.now();
    const stream = await sandbox.tunnel(echoPort).connect();
    const payload = randomBytes(8 * 1024 * 1024);
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    const ended = once(stream, "end");
    stream.end(payload);
    await ended;
    assert.ok(Date.now() - t0 < 5000, "the tunnel closed promptly after the echo server's FIN");
    assert.equal(
      createHash("sha256").update(Buffer.concat(chunks)).digest("hex"),
      createHash("sha256").update(payload).digest("hex"),
    );

    const listener = await sandbox.tunnel(echoPort).listen(0);
    try {
      const port = (listener.address() as net.AddressInfo).port;
      const socket = net.connect(port, "127.0.0.1");
      const got: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => got.push(chunk));
      socket.end("hello through the tunnel");
      await once(socket, "end");
      assert.equal(Buffer.concat(got).toString(), "hello through the tunnel");
    } finally {
      listener.close();
    }
  });

  test("a local listener carries 32 MiB each way in order, with a local reader that stalls, then half-closes", async () => {
    const listener = await sandbox.tunnel(echoPort).listen(0);
    try {
      const port = (listener.address() as net.AddressInfo).port;
      const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
      await once(socket, "connect");
      const block = randomBytes(1024 * 1024);
      const sent = createHash("sha256");
      const got = createHash("sha256");
      let received = 0;
      socket.on("data", (chunk: Buffer) => {
        got.update(chunk);
        received += chunk.length;
        // Stall once, long enough for every buffer on the way back to fill.
        if (received >= 8 * 1024 * 1024 && received - chunk.length < 8 * 1024 * 1024) {
          socket.pause();
          setTimeout(() => socket.resume(), 300);
        }
      });
      const ended = once(socket, "end");
      for (let i = 0; i < 32; i++) {
        sent.update(block);
        if (!socket.write(block)) await once(socket, "drain");
      }
      socket.end();
      await ended;
      assert.equal(received, 32 * 1024 * 1024);
      assert.equal(got.digest("hex"), sent.digest("hex"));
    } finally {
      listener.close();
    }
  });

  test("the sandbox side writing 64 MiB and closing at once: a slow local reader still gets every byte, the first included", {
    timeout: 60_000,
  }, async () => {
    const payload = randomBytes(64 * 1024 * 1024);
    const source = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.end(payload);
    });
    source.listen(0, "127.0.0.1");
    await once(source, "listening");
    const listener = await sandbox.tunnel((source.address() as net.AddressInfo).port).listen(0);
    try {
      const socket = net.connect((listener.address() as net.AddressInfo).port, "127.0.0.1");
      await once(socket, "connect");
      // Not read until every hop has closed behind the data: what they still hold must reach the reader.
      socket.pause();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const got = createHash("sha256");
      let length = 0;
      socket.on("data", (chunk: Buffer) => {
        got.update(chunk);
        length += chunk.length;
      });
      socket.resume();
      await once(socket, "end");
      assert.equal(length, payload.length);
      assert.equal(got.digest("hex"), createHash("sha256").update(payload).digest("hex"));

      // The same through a stream: its first bytes come with the handshake too.
      const stream = await sandbox.tunnel((source.address() as net.AddressInfo).port).connect();
      let streamed = 0;
      for await (const chunk of stream) streamed += (chunk as Buffer).length;
      assert.equal(streamed, payload.length);
    } finally {
      listener.close();
      source.close();
    }
  });

  test("tunnel errors through the proxy: 400 bad port, 502 nothing listening, 401 without a key", async () => {
    await assert.rejects(sandbox.tunnel(0).connect(), (error: SvcError) => error.status === 400);
    const probe = net.createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const free = (probe.address() as net.AddressInfo).port;
    await new Promise((done) => probe.close(done));
    await assert.rejects(
      sandbox.tunnel(free).connect(),
      (error: SvcError) => error.status === 502 && error.code === "CONNECTION_FAILED",
    );
    const ws = new WebSocket(`ws://127.0.0.1:${server.proxyPort}/api/v1/tunnels/tcp?port=${echoPort}`, {
      headers: { "x-svc-sandbox-id": sandbox.id },
    });
    ws.on("error", () => {});
    const [req, res] = await once(ws, "unexpected-response");
    assert.equal(res.statusCode, 401);
    res.resume();
    req.destroy();
  });
});
