/**
 * PTY and TCP tunnel benchmark, through the real sandbox proxy, one process per hop as in real use:
 *
 * - this process: the orchestrator, the PTY client and the TCP sink on 127.0.0.1;
 * - a server process (api + proxy), which also starts the runtime daemon as its own process (as in a sandbox)
 *   and points the sandbox row at it;
 * - a client process (what `svc tunnel` is): the SDK's local tunnel listener and the TCP client that writes.
 *
 *   npx node bench/pty-tunnel-bench.ts [--keystrokes 500] [--megabytes 1000] [--runs 5] [--profile server,client,daemon]
 *
 * Prints: keystroke-to-echo round trip of a PTY (`cat` with the terminal's echo) over the SDK's WebSocket through
 * the proxy (p50, p90, p99); and throughput of N MB written by the client process into the sink, over plain
 * loopback TCP and through `sandbox.tunnel(port).listen()` (client → local listener → WebSocket → proxy →
 * daemon → sink), alternately, `--runs` times each after a warm-up run: the medians and the median of the runs'
 * ratios. Then the other way: the client process reads N MB that a source in this process writes (sandbox side). `--profile` writes `--cpu-prof` profiles of those processes to bench/profiles.
 */
import { type ChildProcess, fork, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { readChunks } from "@svc/contract/socket-reads";
import { Client } from "@svc/sdk";

const { values } = parseArgs({
  options: {
    keystrokes: { type: "string", default: "500" },
    megabytes: { type: "string", default: "1000" },
    runs: { type: "string", default: "5" },
    profile: { type: "string", default: "" },
    role: { type: "string", default: "main" },
  },
});
const KEYSTROKES = Number(values.keystrokes);
const BYTES = Number(values.megabytes) * 1_000_000;
const RUNS = Number(values.runs);
const PROFILED = new Set(values.profile.split(",").filter(Boolean));
const PROFILE_DIR = fileURLToPath(new URL("./profiles", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

function profileArgs(role: string): string[] {
  return PROFILED.has(role)
    ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR, "--cpu-prof-name", `${role}.cpuprofile`]
    : [];
}

interface Endpoint {
  url: string;
  apiKey: string;
  sandboxId: string;
  daemonPid?: number;
}

/** Upload: the client writes into the sink on `port`. Download: the client reads what the source on `port` writes. */
type ToClient = { transfer: "plain" | "tunnel"; direction: "up" | "down"; port: number };
type FromClient = { started: string } | { received: string } | { error: string };

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

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

function nextMessage<T>(child: ChildProcess | NodeJS.Process): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the child process exited with ${code}`));
    child.once("message", (message) => {
      child.off("exit", onExit);
      resolve(message as T);
    });
    child.once("exit", onExit);
  });
}

/** The server process: api + proxy, a sandbox, and its daemon as a child. Stops on "stop". */
async function serverRole(): Promise<void> {
  const { startTestServer } = await import("../packages/server/src/testing.ts");
  const server = await startTestServer({ executor: "none" });
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  const sandbox = await client.sandboxes.create({ name: "bench" });
  const daemonPort = await freePort();
  const daemon = spawn(
    process.execPath,
    [
      ...profileArgs("daemon"),
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
  process.send?.({
    url: server.url,
    apiKey: server.apiKey,
    sandboxId: sandbox.id,
    daemonPid: daemon.pid,
  } satisfies Endpoint);
  await nextMessage(process);
  const exited = once(daemon, "exit");
  daemon.kill("SIGTERM");
  await exited;
  await server.stop();
  process.disconnect();
}

/**
 * The client process: on each request, writes BYTES into the sink (upload) or reads BYTES from the source
 * (download), plainly or through a tunnel listener.
 */
async function clientRole(): Promise<void> {
  const endpoint = await nextMessage<Endpoint>(process);
  const client = new Client({ apiKey: endpoint.apiKey, baseUrl: endpoint.url });
  const sandbox = await client.sandboxes.get(endpoint.sandboxId);
  const block = Buffer.alloc(256 * 1024, 0x5a);
  process.on("message", async (message: ToClient | "stop") => {
    if (message === "stop") {
      process.disconnect();
      return;
    }
    try {
      let port = message.port;
      let listener: net.Server | undefined;
      if (message.transfer === "tunnel") {
        listener = await sandbox.tunnel(message.port).listen(0);
        port = (listener.address() as net.AddressInfo).port;
      }
      const socket = net.connect(port, "127.0.0.1");
      await once(socket, "connect");
      if (message.direction === "down") {
        // A lean reader, as the lean sink: it counts, and says when the last byte arrived.
        let received = 0;
        let reader: net.Socket | undefined;
        const done = new Promise<void>((resolve) => {
          reader = readChunks(socket, (chunk) => {
            received += chunk.length;
            if (received >= BYTES) resolve();
            return undefined;
          });
        });
        await done;
        process.send?.({ received: String(process.hrtime.bigint()) } satisfies FromClient);
        reader?.destroy();
        listener?.close();
        return;
      }
      process.send?.({ started: String(process.hrtime.bigint()) } satisfies FromClient);
      let sent = 0;
      while (sent < BYTES) {
        const chunk = block.subarray(0, Math.min(block.length, BYTES - sent));
        sent += chunk.length;
        if (!socket.write(chunk)) await once(socket, "drain");
      }
      socket.end();
      await once(socket, "close");
      listener?.close();
    } catch (error) {
      process.send?.({ error: String(error) } satisfies FromClient);
    }
  });
}

async function mainRole(): Promise<void> {
  const server = fork(SELF, ["--role", "server", "--profile", values.profile], {
    execArgv: profileArgs("server"),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const endpoint = await nextMessage<Endpoint>(server);
  const clientProcess = fork(SELF, ["--role", "client", "--megabytes", values.megabytes], {
    execArgv: profileArgs("client"),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  clientProcess.send(endpoint);
  const client = new Client({ apiKey: endpoint.apiKey, baseUrl: endpoint.url });
  const sandbox = await client.sandboxes.get(endpoint.sandboxId);

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

    // Tunnel throughput against plain loopback: the same client process, the same sink in this one. Two sinks: a
    // lean reader (reused buffers, as a C program reads), which shows the cost of the path itself, and a Node
    // program's usual 'data' handler (a fresh 64 KiB buffer per read, left to the GC), which is often the bottleneck.
    let sinkDone: ((at: bigint) => void) | undefined;
    let received = 0;
    const count = (length: number) => {
      received += length;
      if (received >= BYTES) sinkDone?.(process.hrtime.bigint());
    };
    const sinks = {
      lean: net.createServer((accepted) => {
        readChunks(accepted, (chunk) => void count(chunk.length)).on("error", () => {});
      }),
      node: net.createServer((socket) => {
        socket.on("data", (chunk: Buffer) => count(chunk.length)).on("error", () => {});
      }),
    };
    const sinkPorts = { lean: 0, node: 0 };
    for (const kind of ["lean", "node"] as const) {
      sinks[kind].listen(0, "127.0.0.1");
      await once(sinks[kind], "listening");
      sinkPorts[kind] = (sinks[kind].address() as net.AddressInfo).port;
    }

    // Download: a source that writes BYTES from a reused block to whoever connects, as fast as it is read.
    let sourceStarted: ((at: bigint) => void) | undefined;
    const block = Buffer.alloc(256 * 1024, 0xa5);
    const source = net.createServer(async (socket) => {
      socket.on("error", () => {});
      sourceStarted?.(process.hrtime.bigint());
      for (let sent = 0; sent < BYTES && !socket.destroyed; ) {
        const chunk = block.subarray(0, Math.min(block.length, BYTES - sent));
        sent += chunk.length;
        if (!socket.write(chunk)) await once(socket, "drain").catch(() => undefined);
      }
      socket.end();
    });
    source.listen(0, "127.0.0.1");
    await once(source, "listening");
    const sourcePort = (source.address() as net.AddressInfo).port;

    const pids = {
      client: clientProcess.pid,
      server: server.pid,
      daemon: endpoint.daemonPid,
      sink: process.pid,
    };
    async function transfer(
      kind: "plain" | "tunnel",
      sink: keyof typeof sinks | "download",
    ): Promise<number> {
      received = 0;
      const before = Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)] as const);
      let seconds: number;
      if (sink === "download") {
        const started = new Promise<bigint>((resolve) => {
          sourceStarted = resolve;
        });
        clientProcess.send({ transfer: kind, direction: "down", port: sourcePort } satisfies ToClient);
        const reply = await nextMessage<FromClient>(clientProcess);
        if ("error" in reply) throw new Error(reply.error);
        if (!("received" in reply)) throw new Error("the client did not say when it received the last byte");
        seconds = Number(BigInt(reply.received) - (await started)) / 1e9;
      } else {
        const done = new Promise<bigint>((resolve) => {
          sinkDone = resolve;
        });
        clientProcess.send({ transfer: kind, direction: "up", port: sinkPorts[sink] } satisfies ToClient);
        const reply = await nextMessage<FromClient>(clientProcess);
        if ("error" in reply) throw new Error(reply.error);
        if (!("started" in reply)) throw new Error("the client did not say when it started");
        seconds = Number((await done) - BigInt(reply.started)) / 1e9;
      }
      const cpu = before.map(
        ([name, start]) => `${name} ${(cpuSeconds(pids[name as keyof typeof pids]) - start).toFixed(2)}`,
      );
      console.log(`  ${kind}, ${sink} sink: ${seconds.toFixed(2)} s wall; cpu s: ${cpu.join(", ")}`);
      return BYTES / 1e6 / seconds;
    }

    const median = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    const kinds = ["lean", "node", "download"] as const;
    const figures = Object.fromEntries(
      kinds.map((kind) => [kind, { plain: [] as number[], tunnel: [] as number[], ratio: [] as number[] }]),
    ) as Record<(typeof kinds)[number], { plain: number[]; tunnel: number[]; ratio: number[] }>;
    // Run 0 warms up (JIT, socket memory) and is not counted: a cold first plain run is up to twice as slow.
    for (let run = 0; run <= RUNS; run++) {
      for (const kind of kinds) {
        const plain = await transfer("plain", kind);
        const tunnel = await transfer("tunnel", kind);
        if (run === 0) continue;
        figures[kind].plain.push(plain);
        figures[kind].tunnel.push(tunnel);
        figures[kind].ratio.push(tunnel / plain);
      }
    }
    sinks.lean.close();
    sinks.node.close();
    source.close();
    for (const kind of kinds) {
      const { plain, tunnel, ratio } = figures[kind];
      const what =
        kind === "download" ? "read by the client from a source in the sandbox" : `into a ${kind} sink`;
      console.log(
        `tcp ${BYTES / 1e6} MB ${what}: plain loopback median ${median(plain).toFixed(0)} MB/s, through the tunnel ${median(tunnel).toFixed(0)} MB/s; tunnel / loopback median ${(median(ratio) * 100).toFixed(1)}% (runs: ${ratio.map((r) => (r * 100).toFixed(0)).join(", ")}%)`,
      );
    }
  } finally {
    const serverExited = once(server, "exit");
    const clientExited = once(clientProcess, "exit");
    clientProcess.send("stop");
    server.send("stop");
    await Promise.all([serverExited, clientExited]);
  }
}

if (values.role === "server") await serverRole();
else if (values.role === "client") await clientRole();
else await mainRole();
