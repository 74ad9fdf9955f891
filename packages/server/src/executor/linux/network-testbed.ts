/**
 * # network-testbed
 *
 * Test support for the network tests: a fake "internet" in a namespace of its own, probes run from inside a
 * sandbox's namespace, and a guard that keeps every packet of the tests on this machine.
 *
 * - `svct-inet` holds the destinations 10.214.0.1–4 (on its lo) with an HTTP server on port 80 that answers
 *   `<local address> <remote address>` and a TCP echo on port 7; it is linked to the host by the veth `svct-up`
 *   (host 10.214.255.2, inet 10.214.255.1), and the host routes 10.214.0.0/24 there. It routes replies to the
 *   sandbox pool back, so it works with or without masquerade (its answer shows the source it saw).
 * - The guard table `inet svct_guard` drops (and counts) every packet forwarded from a `svc*` interface to any
 *   interface that is not one of ours, after the host firewall had its say: whatever the code under test does,
 *   nothing reaches the host's real network. `guardDrops()` tells whether it ever had to act.
 *
 * One test process at a time holds the fake internet (a lock file in /run); nothing here is used by the server.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import dgram from "node:dgram";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { buildAnswer, errorResponse, parseQuestion } from "./dns-message.ts";
import { DEFAULT_POOL, netnsPath, runTool } from "./network.ts";

export const FAKE_INET_NETNS = "svct-inet";
export const FAKE_INET_LINK = "svct-up";
export const FAKE_INET_HOST_IP = "10.214.255.2";
export const FAKE_INET_GATEWAY = "10.214.255.1";
/** Addresses of the fake internet's servers. */
export const FAKE_DESTINATIONS = ["10.214.0.1", "10.214.0.2", "10.214.0.3", "10.214.0.4"];
const GUARD_TABLE = "svct_guard";

/** Why the network tests cannot run here, or null. */
export function missingNetworkRequirement(): string | null {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "not root";
  for (const [tool, args] of [
    ["ip", ["-V"]],
    ["nft", ["--version"]],
    ["nsenter", ["--version"]],
  ] as const) {
    const result = spawnSync(tool, args, { stdio: "ignore", timeout: 5000 });
    if (result.error || result.status !== 0) {
      return `${tool} is missing (apt-get install -y iproute2 nftables util-linux)`;
    }
  }
  const nft = spawnSync("nft", ["list", "tables"], { stdio: "ignore", timeout: 5000 });
  if (nft.status !== 0) return "nft cannot list tables (no nf_tables in this kernel?)";
  return null;
}

const SERVER = `
const http = require("node:http");
const net = require("node:net");
const server = http.createServer((req, res) => {
  res.setHeader("connection", "close");
  res.end(req.socket.localAddress + " " + req.socket.remoteAddress);
});
const echo = net.createServer((socket) => socket.pipe(socket));
server.listen(80, "0.0.0.0", () => echo.listen(7, "0.0.0.0", () => console.log("ready")));
`;

/** Starts `script` with this Node inside a network namespace; resolves once it prints its first line. */
export async function startInNetns(
  netnsFile: string,
  script: string,
  args: string[] = [],
): Promise<ChildProcess> {
  const child = spawn(
    "nsenter",
    [`--net=${netnsFile}`, "--", process.execPath, "-e", script, "--", ...args],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no output within 10 s from a process in ${netnsFile}: ${stderr}`));
    }, 10_000);
    child.stdout?.setEncoding("utf8").once("data", () => {
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`process in ${netnsFile} exited with ${code}: ${stderr}`));
    });
  });
  return child;
}

export interface FakeInternet {
  /** Forwarded packets the guard had to drop (should stay 0). */
  guardDrops(): Promise<number>;
  close(): Promise<void>;
}

const LOCK = "/run/svct-inet.lock";

/** One fake internet per host at a time: test files running in parallel wait for each other. */
async function takeLock(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await writeFile(LOCK, String(process.pid), { flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(await readFile(LOCK, "utf8").catch(() => "0"));
    let alive = holder > 0;
    try {
      if (alive) process.kill(holder, 0);
    } catch {
      alive = false;
    }
    if (!alive) await rm(LOCK, { force: true });
    else if (Date.now() > deadline) throw new Error(`the fake internet is held by pid ${holder}`);
    else await sleep(100);
  }
}

/** Builds the fake internet and the guard; `close` removes both (also after a half-made start). */
export async function startFakeInternet(options: { pool?: string } = {}): Promise<FakeInternet> {
  await takeLock(120_000);
  let server: ChildProcess | undefined;
  const close = async () => {
    server?.kill("SIGKILL");
    const batch: string[] = [];
    if (existsSync(`/sys/class/net/${FAKE_INET_LINK}`)) batch.push(`link del ${FAKE_INET_LINK}`);
    if (existsSync(`/run/netns/${FAKE_INET_NETNS}`)) batch.push(`netns del ${FAKE_INET_NETNS}`);
    if (batch.length > 0) await runTool("ip", ["-force", "-b", "-"], `${batch.join("\n")}\n`).catch(() => {});
    await runTool("nft", ["-f", "-"], `table inet ${GUARD_TABLE} {}\ndelete table inet ${GUARD_TABLE}\n`);
  };
  const closeAndUnlock = async () => {
    try {
      await close();
    } finally {
      await rm(LOCK, { force: true });
    }
  };
  await close(); // leftovers of a killed run
  try {
    await runTool(
      "nft",
      ["-f", "-"],
      [
        `table inet ${GUARD_TABLE} {`,
        "  chain forward {",
        "    type filter hook forward priority filter + 10; policy accept;",
        '    iifname "svc*" oifname != "svc*" counter drop',
        "  }",
        "}",
        "",
      ].join("\n"),
    );
    const inet = `/run/netns/${FAKE_INET_NETNS}`;
    await runTool(
      "ip",
      ["-b", "-"],
      [
        `netns add ${FAKE_INET_NETNS}`,
        `link add ${FAKE_INET_LINK} type veth peer name eth0 netns ${FAKE_INET_NETNS}`,
        `addr add ${FAKE_INET_HOST_IP}/30 dev ${FAKE_INET_LINK}`,
        `link set ${FAKE_INET_LINK} up`,
        "",
      ].join("\n"),
    );
    await runTool(
      "ip",
      ["-n", FAKE_INET_NETNS, "-b", "-"],
      [
        "link set lo up",
        ...FAKE_DESTINATIONS.map((address) => `addr add ${address}/32 dev lo`),
        `addr add ${FAKE_INET_GATEWAY}/30 dev eth0`,
        "link set eth0 up",
        `route add ${options.pool ?? DEFAULT_POOL} via ${FAKE_INET_HOST_IP}`,
        "",
      ].join("\n"),
    );
    await runTool("ip", ["route", "add", "10.214.0.0/24", "via", FAKE_INET_GATEWAY, "dev", FAKE_INET_LINK]);
    await writeFile(`/proc/sys/net/ipv4/conf/${FAKE_INET_LINK}/forwarding`, "1");
    server = await startInNetns(inet, SERVER);
  } catch (error) {
    await closeAndUnlock();
    throw error;
  }
  return {
    async guardDrops() {
      const text = await runTool("nft", ["list", "chain", "inet", GUARD_TABLE, "forward"]);
      return Number(/counter packets (\d+)/.exec(text)?.[1] ?? Number.NaN);
    },
    close: closeAndUnlock,
  };
}

export interface ProbeTarget {
  host: string;
  port: number;
  /** Bytes to send after connecting; default an HTTP/1.0 GET. */
  send?: string;
}

export type ProbeResult = { ok: true; body: string; ms: number } | { ok: false; error: string; ms: number };

const PROBE = `
const net = require("node:net");
const [targets, timeoutMs] = [JSON.parse(process.argv[1]), Number(process.argv[2])];
Promise.all(targets.map((target) => new Promise((resolve) => {
  const started = Date.now();
  let body = "";
  let settled = false;
  const done = (result) => { if (!settled) { settled = true; socket.destroy(); resolve({ ...result, ms: Date.now() - started }); } };
  const socket = net.connect({ host: target.host, port: target.port });
  socket.setTimeout(timeoutMs, () => done({ ok: false, error: "TIMEOUT" }));
  socket.on("connect", () => socket.end(target.send ?? "GET / HTTP/1.0\\r\\n\\r\\n"));
  socket.on("data", (chunk) => { body += chunk; });
  socket.on("end", () => done({ ok: true, body: body.split("\\r\\n\\r\\n").pop() }));
  socket.on("error", (error) => done({ ok: false, error: error.code ?? String(error) }));
}))).then((results) => console.log(JSON.stringify(results)));
`;

/**
 * Connects from inside a sandbox's namespace to each target (in parallel), sends a request and reads until the
 * server closes. A refused or rejected connection reports its errno code; one that hangs, TIMEOUT.
 */
export async function probeFrom(
  sandboxId: string,
  targets: ProbeTarget[],
  timeoutMs = 1500,
): Promise<ProbeResult[]> {
  const output = await runTool("nsenter", [
    `--net=${netnsPath(sandboxId)}`,
    "--",
    process.execPath,
    "-e",
    PROBE,
    JSON.stringify(targets),
    String(timeoutMs),
  ]);
  return JSON.parse(output) as ProbeResult[];
}

/**
 * A fake upstream name server on 127.0.0.1 for the sandboxes' resolver: A records from `names` (TTL from
 * `ttls`, else 60 s), NXDOMAIN for the rest. The maps are read at each query, so a test moves names by changing
 * them.
 */
export async function startFakeDns(
  names: Map<string, string[]>,
  ttls: Map<string, number>,
): Promise<{ address: string; close(): void }> {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (query, from) => {
    const question = parseQuestion(query);
    if (!question) return;
    const addresses = names.get(question.name);
    const answer = addresses
      ? buildAnswer(query, addresses, ttls.get(question.name) ?? 60)
      : errorResponse(query, question, 3);
    if (answer) socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { address: `127.0.0.1:${socket.address().port}`, close: () => socket.close() };
}
