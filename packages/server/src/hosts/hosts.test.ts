import assert from "node:assert/strict";
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { SANDBOX_SSHD_PORT } from "@svc/contract";
import pg from "pg";
import { WebSocket } from "ws";
import { documentsApi } from "../documents/api.testing.ts";
import { LocalExecutor } from "../executor/linux/local-executor.ts";
import { openStore } from "../store/store.ts";

/**
 * Three hosts on this machine: separate server processes, each in a network namespace of its own with its own
 * address on a bridge, one PostgreSQL (reached through a forwarder on the bridge address). Host a runs every role
 * but the workers, b is an executor and worker host, c runs no executor. Sandboxes land on both executors and are
 * reached through either proxy; b is killed and its sandboxes end executor_lost while new ones land on a; a parse
 * under way on c is killed with c and finishes on b once b comes back (which also removes what its old sandboxes
 * left). Namespaces, the bridge and the schema are removed at the end, also after a failure.
 */

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
const skip =
  process.getuid?.() !== 0
    ? "needs root (network namespaces and sandboxes)"
    : !databaseUrl
      ? "SVC_TEST_DATABASE_URL is not set"
      : false;
if (process.env.CI === "true" && skip) test("several hosts", () => assert.fail(`cannot run: ${skip}`));

const HOST_SCRIPT = new URL("./host.testing.ts", import.meta.url).pathname;
const tag = randomBytes(2).toString("hex");
const subnet = `10.251.${randomBytes(1)[0] % 250}`;
const bridge = `svhb${tag}`;
const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });

interface Host {
  name: string;
  netns: string;
  address: string;
  dataDir: string;
  roles: string;
  child: ChildProcess | null;
  url: string;
  proxyPort: number;
}

const hosts: Host[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error("cleanup:", error);
    }
  }
});

/** A TCP forwarder on the bridge address to PostgreSQL on loopback (it listens on loopback only). */
async function forwardPostgres(target: URL): Promise<number> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  server.listen(0, `${subnet}.1`);
  await once(server, "listening");
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as net.AddressInfo).port;
}

function setUpNetwork(names: string[]): void {
  ip("link", "add", bridge, "type", "bridge");
  cleanups.push(() => ip("link", "del", bridge));
  ip("addr", "add", `${subnet}.1/24`, "dev", bridge);
  ip("link", "set", bridge, "up");
  names.forEach((name, i) => {
    const netns = `svc-host-${tag}-${name}`;
    ip("netns", "add", netns);
    cleanups.push(() => ip("netns", "del", netns));
    const outside = `svhv${tag}${i}`;
    ip("link", "add", outside, "type", "veth", "peer", "name", `svhp${tag}${i}`);
    ip("link", "set", `svhp${tag}${i}`, "netns", netns);
    ip("link", "set", outside, "master", bridge, "up");
    ip("-n", netns, "link", "set", "lo", "up");
    ip("-n", netns, "addr", "add", `${subnet}.${11 + i}/24`, "dev", `svhp${tag}${i}`);
    ip("-n", netns, "link", "set", `svhp${tag}${i}`, "up");
  });
}

async function start(host: Host, database: string): Promise<void> {
  const config = {
    dataDir: host.dataDir,
    databaseUrl: database,
    roles: host.roles,
    hostId: host.name,
    host: host.address,
    port: 8900,
    proxyHost: host.address,
    proxyPort: 9443,
    sshHost: host.address,
    sshPort: host.roles.includes("proxy") ? 2222 : 0,
    relayHost: host.address,
    relayPort: 9510,
    executor: host.roles.includes("executor") ? "local" : "none",
    executorLostSecs: 6,
    ...(process.env.SVC_HOSTS_TEST_LOG ? { logLevel: "info" } : {}),
  };
  const documents = { workers: 1, leaseSecs: 2, pollIntervalMs: 100 };
  // Only the network namespace changes: cgroups, /run/netns and the mounts stay the machine's.
  const child = spawn(
    "nsenter",
    [
      `--net=/run/netns/${host.netns}`,
      process.execPath,
      HOST_SCRIPT,
      JSON.stringify(config),
      JSON.stringify(documents),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  host.child = child;
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  // The ready line, among the log lines when the hosts log (SVC_HOSTS_TEST_LOG=1).
  const readyLine = new Promise<string>((resolve) =>
    lines.on("line", (line) => {
      if (line.includes('"relayAddress"')) resolve(line);
      else process.stderr.write(`${host.name}: ${line}\n`);
    }),
  );
  const line = await Promise.race([
    readyLine,
    once(child, "exit").then(([code]): string => {
      throw new Error(`host ${host.name} exited with ${code} before serving`);
    }),
  ]);
  const ready = JSON.parse(line) as { url: string; proxyPort: number };
  host.url = ready.url;
  host.proxyPort = ready.proxyPort;
}

async function kill(host: Host, signal: NodeJS.Signals): Promise<void> {
  const child = host.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  await exited;
  host.child = null;
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test("three hosts: placement on both executors, proxies across hosts, executor_lost, a parse survives its worker host", {
  skip,
  timeout: 600_000,
}, async () => {
  // A schema of its own in the test database.
  const schema = `svc_hosts_${process.pid}_${tag}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  cleanups.push(() => admin(`DROP SCHEMA ${schema} CASCADE`));

  const names = ["a", "b", "c"];
  const roles = ["api,proxy,scheduler,executor", "api,proxy,executor,worker", "api,proxy,scheduler,worker"];
  setUpNetwork(names);
  const pgUrl = new URL(databaseUrl as string);
  const forwarded = await forwardPostgres(pgUrl);
  const database = new URL(databaseUrl as string);
  database.host = `${subnet}.1:${forwarded}`;
  database.searchParams.set("options", `-c search_path=${schema}`);
  const localDatabase = new URL(databaseUrl as string);
  localDatabase.searchParams.set("options", `-c search_path=${schema}`);

  for (const [i, name] of names.entries()) {
    const host: Host = {
      name,
      netns: `svc-host-${tag}-${name}`,
      address: `${subnet}.${11 + i}`,
      dataDir: await mkdtemp(path.join(tmpdir(), `svc-host-${name}-`)),
      roles: roles[i],
      child: null,
      url: "",
      proxyPort: 0,
    };
    hosts.push(host);
  }
  // After a failure: processes killed, then what their sandboxes left on this machine removed.
  cleanups.push(async () => {
    for (const host of hosts) await kill(host, "SIGKILL");
    for (const host of hosts) {
      const executor = new LocalExecutor({
        dataDir: host.dataDir,
        hostId: host.name,
        cpuOvercommit: 1,
        memoryOvercommit: 1,
        log: () => {},
      });
      for (const id of await executor.leftovers()) await executor.stop(id).catch(() => undefined);
      await rm(host.dataDir, { recursive: true, force: true });
    }
  });
  const [a, b, c] = hosts;
  // The first host migrates the schema and bootstraps the project; the others join it.
  await start(a, database.toString());
  await Promise.all([start(b, database.toString()), start(c, database.toString())]);
  const apiKey = readFileSync(path.join(a.dataDir, "api-key"), "utf8").trim();
  const store = await openStore({ databaseUrl: localDatabase.toString() });
  cleanups.push(() => store.close());

  const call = async (host: Host, method: string, route: string, body?: unknown) => {
    const response = await fetch(`${host.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape.
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  const sandbox = (id: string) =>
    store.db
      .query<{ status: string; executor_id: string | null; termination_reason: string | null }>(
        "SELECT status, executor_id, termination_reason FROM sandboxes WHERE id = ?",
        [id],
      )
      .then((rows) => rows[0]);

  // Both executors register.
  await eventually("two executors", async () => {
    const rows = await store.db.query<{ id: string }>("SELECT id FROM executors ORDER BY id");
    return rows.length === 2 ? rows : undefined;
  });

  // Sandboxes, created through every API host, until both executors hold some.
  const created: string[] = [];
  for (const host of [a, c, b, c]) {
    const { status, body } = await call(host, "POST", "/sandboxes", {
      resources: { cpus: 0.5, memory_mb: 256 },
    });
    assert.equal(status, 200, JSON.stringify(body));
    created.push(body.sandbox_id);
  }
  const placed = await Promise.all(
    created.map((id) =>
      eventually(`sandbox ${id} running`, async () => {
        const row = await sandbox(id);
        assert.notEqual(row.status, "terminated", JSON.stringify(row));
        return row.status === "running" ? row : undefined;
      }),
    ),
  );
  const on = (executor: string) => created.filter((_, i) => placed[i].executor_id === executor);
  assert.ok(on("local-a").length > 0 && on("local-b").length > 0, JSON.stringify(placed));

  // Every sandbox answers through either proxy (c runs no executor: always through a relay), HTTP and WebSocket.
  const viaProxy = async (host: Host, id: string, route: string) => {
    const response = await fetch(`http://${host.address}:${host.proxyPort}/sandboxes/${id}${route}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    return { status: response.status, text: await response.text() };
  };
  for (const id of created) {
    for (const host of [a, b, c]) {
      const info = await viaProxy(host, id, "/api/v1/info");
      assert.equal(info.status, 200, `${id} (${JSON.stringify(placed)}) through ${host.name}: ${info.text}`);
    }
  }
  // Logs through an API host without an executor; SSH through its gateway into a sandbox of b; a tunnel
  // WebSocket through its proxy to the sshd that SSH started there.
  const onB = on("local-b")[0];
  const logs = await call(c, "GET", `/sandboxes/${onB}/logs`);
  assert.equal(logs.status, 200, JSON.stringify(logs.body));
  const ssh = await new Promise<{ stdout: string; stderr: string; code: number }>((resolve) => {
    execFile(
      "sshpass",
      [
        ...["-e", "ssh", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"],
        ...["-o", "LogLevel=ERROR", "-o", "PubkeyAuthentication=no", "-p", "2222"],
        ...[`${onB}@${c.address}`, "echo hi from $(hostname)"],
      ],
      { env: { ...process.env, SSHPASS: apiKey }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
  assert.equal(ssh.code, 0, ssh.stderr);
  assert.match(ssh.stdout, /^hi from /);
  const tunnel = new WebSocket(
    `ws://${c.address}:${c.proxyPort}/sandboxes/${onB}/api/v1/tunnels/tcp?port=${SANDBOX_SSHD_PORT}`,
    { headers: { authorization: `Bearer ${apiKey}` } },
  );
  const [banner] = (await once(tunnel, "message")) as [Buffer];
  assert.match(banner.toString(), /^SSH-2\.0-/);
  tunnel.close();

  // No relay serves a stranger: a connection that does not open with a signed line is closed with nothing.
  const relay = net.connect(9510, b.address);
  await once(relay, "connect");
  relay.end(`GET /sandboxes/${on("local-b")[0]}/api/v1/info HTTP/1.1\r\nHost: x\r\n\r\n`);
  let answered = "";
  relay.on("data", (chunk) => {
    answered += chunk;
  });
  await once(relay, "close");
  assert.equal(answered, "");

  // Executor b dies: its sandboxes end executor_lost; new sandboxes land on a.
  await kill(b, "SIGKILL");
  for (const id of on("local-b")) {
    const ended = await eventually(`${id} executor_lost`, async () => {
      const row = await sandbox(id);
      return row.status === "terminated" ? row : undefined;
    });
    assert.equal(ended.termination_reason, "executor_lost");
  }
  for (const id of on("local-a")) assert.equal((await sandbox(id)).status, "running");
  const more = await call(c, "POST", "/sandboxes", { resources: { cpus: 0.5, memory_mb: 256 } });
  assert.equal(more.status, 200, JSON.stringify(more.body));
  const landed = await eventually("the new sandbox running", async () => {
    const row = await sandbox(more.body.sandbox_id);
    return row.status === "running" ? row : undefined;
  });
  assert.equal(landed.executor_id, "local-a");
  assert.equal((await viaProxy(c, more.body.sandbox_id, "/api/v1/info")).status, 200);

  // Parsing: only c runs workers now. A parse under way on c dies with c and finishes on b when b comes back;
  // a PDF uploaded through a is stored in the database, so b reads it.
  const api = documentsApi({ url: a.url, apiKey });
  const pdf = readFileSync("/work/shared/corpus/docling/tests/data/pdf/sources/normal_4pages.pdf");
  const { body: file } = await api.upload(new Uint8Array(pdf), "normal_4pages.pdf", {
    type: "application/pdf",
  });
  const slow = await api.expect(200, "POST", "/documents/v2/parse", {
    raw_text: "svc-test:sleep=20000\n\nsurvivor",
  });
  await eventually("the parse leased on c", async () => {
    const { body } = await api.call("GET", `/documents/v2/parse/${slow.parse_id}`);
    return body.status === "processing" ? body : undefined;
  });
  await kill(c, "SIGKILL");
  const pages = await api.expect(200, "POST", "/documents/v2/parse", { file_id: file.file_id });
  const leftBehind = readdirSync(path.join(b.dataDir, "sandboxes"));
  assert.ok(leftBehind.length > 0, "b's killed process left its sandboxes behind");
  await start(b, database.toString());
  // Coming back, b removed what its ended sandboxes left.
  assert.deepEqual(readdirSync(path.join(b.dataDir, "sandboxes")), []);
  const result = await api.finished(slow.parse_id, 120_000);
  assert.equal(result.status, "successful", result.error ?? "");
  assert.match(result.chunks?.[0].content ?? "", /survivor/);
  const [job] = await store.db.query<{ attempts: number }>("SELECT * FROM parse_jobs WHERE id = ?", [
    slow.parse_id,
  ]);
  assert.equal(Number(job.attempts), 2, JSON.stringify(job));
  const parsed = await api.finished(pages.parse_id, 120_000);
  assert.equal(parsed.status, "successful", parsed.error ?? "");
  assert.ok((parsed.chunks ?? []).length > 0);

  // The end: every sandbox deleted through a; both executors remove theirs.
  for (const id of [...created, more.body.sandbox_id]) await call(a, "DELETE", `/sandboxes/${id}`);
  for (const host of [a, b]) {
    await eventually(`${host.name}'s sandboxes removed`, async () =>
      readdirSync(path.join(host.dataDir, "sandboxes")).length === 0 ? true : undefined,
    );
  }
  for (const host of hosts) await kill(host, "SIGTERM");
});
