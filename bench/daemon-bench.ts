/**
 * Runtime daemon benchmark: the daemon runs as its own process (so its RSS is its own), driven over HTTP.
 *
 *   npx node bench/daemon-bench.ts [--runs 300] [--megabytes 200] [--line-bytes 100] [--flood-megabytes 1000]
 *                                  [--rounds 3] [--daemon-node-options "--max-semi-space-size=4"]
 *
 * Prints: `run` of `true` end to end (p50, p90); throughput of a process writing N MB read through
 * `/output/follow` against a plain pipe read of the same command (median and best of the rounds, and their
 * ratio); daemon RSS idle, while a follower reads the flood, and while a flood nobody reads is spooled.
 *
 * The follower is curl when it is installed (a client that costs little CPU, so the figure is the daemon's),
 * else Node's http client. Every follow is checked: the body must be exactly the expected frames and `eof`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { FORWARDED_AUTH_HEADER, signForwardedAuth } from "@svc/contract";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "300" },
    megabytes: { type: "string", default: "200" },
    "line-bytes": { type: "string", default: "100" },
    "flood-megabytes": { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    "daemon-node-options": { type: "string", default: "" },
  },
});
const RUNS = Number(values.runs);
const BYTES = Number(values.megabytes) * 1_000_000;
const LINE_BYTES = Number(values["line-bytes"]);
const FLOOD_BYTES = Number(values["flood-megabytes"]) * 1_000_000;
const ROUNDS = Number(values.rounds);
const DAEMON_NODE_OPTIONS = values["daemon-node-options"].split(" ").filter((o) => o !== "");
const HAS_CURL = spawnSync("curl", ["--version"]).status === 0;
const SECRET = "bench-secret";
const SANDBOX_ID = "bench";
const MAX_OUTPUT_MEMORY = 8 * 1024 * 1024;

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

interface Daemon {
  child: ChildProcess;
  port: number;
}

async function startDaemonProcess(): Promise<Daemon> {
  const main = fileURLToPath(new URL("../packages/daemon/src/main.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    [
      ...DAEMON_NODE_OPTIONS,
      main,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--sandbox-id",
      SANDBOX_ID,
      "--log-level",
      "silent",
      "--max-output-memory-bytes",
      String(MAX_OUTPUT_MEMORY),
    ],
    { env: { ...process.env, SVC_DAEMON_AUTH_SECRET: SECRET }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`daemon exited (${code}): ${text}`)));
  });
  return { child, port };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** One signed HTTP request; `onData` sees the body as it arrives, else it is collected. */
function call(
  daemon: Daemon,
  method: string,
  path: string,
  body?: unknown,
  onData?: (chunk: Buffer) => void,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port: daemon.port,
        method,
        path,
        headers: {
          [FORWARDED_AUTH_HEADER]: signForwardedAuth({
            secret: SECRET,
            sandboxId: SANDBOX_ID,
            method,
            pathAndQuery: path,
          }),
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => (onData ? onData(chunk) : chunks.push(chunk)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A shell command writing `bytes` bytes as lines of `LINE_BYTES` (newline included). */
const floodCommand = (bytes: number) => [
  "sh",
  "-c",
  `yes '${"x".repeat(LINE_BYTES - 1)}' | head -c ${bytes}`,
];

/** The exact body of `/output/follow` for the flood: one frame per line (timestamps have 13 digits), then eof. */
function expectedFollowBytes(): number {
  const frame = `event: output\ndata: {"line":"${"x".repeat(LINE_BYTES - 1)}","timestamp":1000000000000,"stream":"stdout"}\n\n`;
  return (BYTES / LINE_BYTES) * Buffer.byteLength(frame) + Buffer.byteLength("event: eof\ndata: {}\n\n");
}

async function pipeThroughput(): Promise<number> {
  const started = performance.now();
  let bytes = 0;
  const [command, ...args] = floodCommand(BYTES);
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] });
  child.stdout.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  await new Promise((done) => child.on("close", done));
  if (bytes !== BYTES) throw new Error(`pipe read ${bytes} bytes`);
  return BYTES / 1e6 / ((performance.now() - started) / 1000);
}

/** Reads a follow stream to its end with curl (or Node's http client without curl); returns the body size. */
async function readFollow(daemon: Daemon, path: string): Promise<{ size: number; tail: string }> {
  if (!HAS_CURL) {
    let size = 0;
    let tail = "";
    await call(daemon, "GET", path, undefined, (chunk) => {
      size += chunk.length;
      tail = (tail + chunk.subarray(-32).toString()).slice(-32);
    });
    return { size, tail };
  }
  const header = signForwardedAuth({
    secret: SECRET,
    sandboxId: SANDBOX_ID,
    method: "GET",
    pathAndQuery: path,
  });
  const curl = spawn(
    "curl",
    [
      "-sS",
      "-N",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{size_download}",
      "-H",
      `${FORWARDED_AUTH_HEADER}: ${header}`,
      `http://127.0.0.1:${daemon.port}${path}`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  curl.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  await new Promise((done) => curl.on("close", done));
  const [status, size] = out.split(" ").map(Number);
  if (status !== 200) throw new Error(`follow answered ${status}`);
  return { size, tail: "" };
}

async function followThroughput(daemon: Daemon, pid: number): Promise<{ mbps: number; peakRss: number }> {
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
  }, 20);
  const started = performance.now();
  const [command, ...args] = floodCommand(BYTES);
  const created = await call(daemon, "POST", "/api/v1/processes", { command, args });
  const processPid = JSON.parse(created.body).pid as number;
  const { size } = await readFollow(daemon, `/api/v1/processes/${processPid}/output/follow`);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (size !== expectedFollowBytes()) {
    throw new Error(`follow body was ${size} bytes, expected ${expectedFollowBytes()}: lines lost or added`);
  }
  return { mbps: BYTES / 1e6 / seconds, peakRss };
}

async function unreadFloodRss(daemon: Daemon, pid: number): Promise<number> {
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
  }, 20);
  const [command, ...args] = floodCommand(FLOOD_BYTES);
  const created = await call(daemon, "POST", "/api/v1/processes", { command, args });
  const processPid = JSON.parse(created.body).pid as number;
  for (;;) {
    const record = JSON.parse((await call(daemon, "GET", `/api/v1/processes/${processPid}`)).body);
    if (record.status !== "running") break;
    await new Promise((done) => setTimeout(done, 50));
  }
  clearInterval(sampler);
  return peakRss;
}

const daemon = await startDaemonProcess();
const daemonPid = daemon.child.pid as number;
try {
  await new Promise((done) => setTimeout(done, 300));
  const idleRss = rssMb(daemonPid);

  for (let i = 0; i < 30; i++) await call(daemon, "POST", "/api/v1/processes/run", { command: "true" });
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const response = await call(daemon, "POST", "/api/v1/processes/run", { command: "true" });
    times.push(performance.now() - started);
    if (!response.body.includes('{"exit_code":0}')) throw new Error(`run true: ${response.body}`);
  }
  times.sort((a, b) => a - b);
  const idleAfterRuns = rssMb(daemonPid);

  const pipe: number[] = [];
  const follow: { mbps: number; peakRss: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    pipe.push(await pipeThroughput());
    follow.push(await followThroughput(daemon, daemonPid));
  }
  const unreadPeak = await unreadFloodRss(daemon, daemonPid);
  const idleAfter = rssMb(daemonPid);

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rates = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
  const followRates = follow.map((f) => f.mbps);
  const mb = (n: number) => `${n.toFixed(0)} MB`;
  const nodeOptions =
    DAEMON_NODE_OPTIONS.length > 0 ? `, daemon node options ${DAEMON_NODE_OPTIONS.join(" ")}` : "";
  console.log(
    `daemon benchmark: node ${process.version}, ${RUNS} runs, ${BYTES / 1e6} MB in ${LINE_BYTES}-byte lines, ${ROUNDS} rounds, follower ${HAS_CURL ? "curl" : "node:http"}${nodeOptions}`,
  );
  console.log(
    `run true, end to end over HTTP:  p50 ${percentile(times, 50).toFixed(2)} ms, p90 ${percentile(times, 90).toFixed(2)} ms  (target p50 <= 5 ms)`,
  );
  console.log(`plain pipe read:                 median ${median(pipe).toFixed(0)} MB/s  (${rates(pipe)})`);
  console.log(
    `/output/follow:                  median ${median(followRates).toFixed(0)} MB/s  (${rates(followRates)})`,
  );
  console.log(
    `follow / pipe:                   ${((median(followRates) / median(pipe)) * 100).toFixed(0)}% of medians, ${((Math.max(...followRates) / Math.max(...pipe)) * 100).toFixed(0)}% of bests  (target >= 50%)`,
  );
  console.log(
    `daemon RSS idle:                 ${mb(idleRss)} at start, ${mb(idleAfterRuns)} after the runs, ${mb(idleAfter)} at the end`,
  );
  console.log(`daemon RSS, flood + follower:    ${mb(Math.max(...follow.map((f) => f.peakRss)))} peak`);
  console.log(
    `daemon RSS, ${FLOOD_BYTES / 1e6} MB nobody reads: ${mb(unreadPeak)} peak  (output kept in memory: ${MAX_OUTPUT_MEMORY / 1024 / 1024} MiB per process, the rest spooled to disk)`,
  );
} finally {
  daemon.child.kill("SIGTERM");
  agent.destroy();
}
