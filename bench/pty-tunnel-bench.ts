/**
 * PTY and TCP tunnel benchmark, through the real sandbox proxy. The server (api + proxy) runs in this process, the
 * runtime daemon as its own process (as in a sandbox), and the sandbox row points at it.
 *
 *   npx node bench/pty-tunnel-bench.ts [--keystrokes 500] [--megabytes 1000]
 *
 * Prints: keystroke-to-echo round trip of a PTY (`cat` with the terminal's echo) over the SDK's WebSocket through
 * the proxy (p50, p90, p99); and throughput of N MB written by a TCP client into a sink on 127.0.0.1, once over
 * plain loopback TCP and once through `sandbox.tunnel(port).listen()` (client → local listener → WebSocket →
 * proxy → daemon → sink), with their ratio.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@svc/sdk";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: {
    keystrokes: { type: "string", default: "500" },
    megabytes: { type: "string", default: "1000" },
  },
});
const KEYSTROKES = Number(values.keystrokes);
const BYTES = Number(values.megabytes) * 1_000_000;

async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((done) => probe.close(done));
  return port;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const server = await startTestServer({ executor: "none" });
const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
const sandbox = await client.sandboxes.create({ name: "bench" });
const daemonPort = await freePort();
const daemon = spawn(
  process.execPath,
  [
    fileURLToPath(new URL("../packages/daemon/src/main.ts", import.meta.url)),
    "--host",
    "127.0.0.1",
    "--port",
    String(daemonPort),
    "--sandbox-id",
    sandbox.id,
    "--log-level",
    "silent",
  ],
  {
    env: { ...process.env, SVC_DAEMON_AUTH_SECRET: server.sandboxes.secretOf(sandbox.id) },
    stdio: ["ignore", "ignore", "pipe"],
  },
);
await new Promise<void>((resolve, reject) => {
  daemon.stderr?.on("data", (chunk: Buffer) => {
    if (chunk.toString().includes("listening on")) resolve();
  });
  daemon.once("exit", (code) => reject(new Error(`the daemon exited with ${code}`)));
});
await server.sandboxes.repo.transition(sandbox.id, ["pending"], {
  status: "running",
  executorId: "bench",
  containerId: "bench-daemon",
  address: `http://127.0.0.1:${daemonPort}`,
  startedAt: Date.now(),
});
await sandbox.refresh();

try {
  // PTY keystroke → echo.
  const term = await sandbox.pty({ command: "cat" });
  let waiting: ((data: Uint8Array) => void) | undefined;
  term.onData((data) => waiting?.(data));
  const samples: number[] = [];
  for (let i = 0; i < KEYSTROKES + 20; i++) {
    const key = String.fromCharCode(97 + (i % 26));
    const echoed = new Promise<void>((resolve) => {
      waiting = (data) => {
        if (Buffer.from(data).toString().includes(key)) resolve();
      };
    });
    const started = process.hrtime.bigint();
    term.write(key);
    await echoed;
    if (i >= 20) samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await term.kill();
  samples.sort((a, b) => a - b);
  console.log(
    `pty echo through the proxy (${KEYSTROKES} keystrokes): p50 ${percentile(samples, 50).toFixed(2)} ms, p90 ${percentile(samples, 90).toFixed(2)} ms, p99 ${percentile(samples, 99).toFixed(2)} ms`,
  );

  // Tunnel throughput against plain loopback, same client and sink.
  let sinkDone: (() => void) | undefined;
  let received = 0;
  const sink = net.createServer((socket) => {
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received >= BYTES) sinkDone?.();
    });
    socket.on("error", () => {});
  });
  sink.listen(0, "127.0.0.1");
  await once(sink, "listening");
  const sinkPort = (sink.address() as net.AddressInfo).port;
  const block = Buffer.alloc(256 * 1024, 0x5a);

  async function transfer(port: number): Promise<number> {
    received = 0;
    const done = new Promise<void>((resolve) => {
      sinkDone = resolve;
    });
    const socket = net.connect(port, "127.0.0.1");
    await once(socket, "connect");
    const started = process.hrtime.bigint();
    let sent = 0;
    while (sent < BYTES) {
      const chunk = block.subarray(0, Math.min(block.length, BYTES - sent));
      sent += chunk.length;
      if (!socket.write(chunk)) await once(socket, "drain");
    }
    await done;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    socket.destroy();
    return BYTES / 1e6 / seconds;
  }

  const plain = await transfer(sinkPort);
  const listener = await sandbox.tunnel(sinkPort).listen(0);
  const tunnelled = await transfer((listener.address() as net.AddressInfo).port);
  listener.close();
  sink.close();
  console.log(`tcp ${BYTES / 1e6} MB, plain loopback: ${plain.toFixed(0)} MB/s`);
  console.log(`tcp ${BYTES / 1e6} MB, through the tunnel: ${tunnelled.toFixed(0)} MB/s`);
  console.log(`tunnel / loopback: ${((tunnelled / plain) * 100).toFixed(1)}%`);
} finally {
  daemon.kill("SIGTERM");
  await server.stop();
}
