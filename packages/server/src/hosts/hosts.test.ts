import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import { SANDBOX_SSHD_PORT } from "@svc/contract";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { WebSocket } from "ws";
import { documentsApi } from "../documents/api.testing.ts";
import { openStore } from "../store/store.ts";
import {
  type Cluster,
  type ClusterHost,
  callApi,
  cleanupsAfterAll,
  clusterSkip,
  createCluster,
  eventually,
} from "./cluster.testing.ts";

/**
 * Three hosts on this machine: separate server processes, each in a network namespace of its own with its own
 * address on a bridge, one PostgreSQL (cluster.testing.ts). a runs api, proxy, scheduler and executor; b only
 * executor and worker (no port but its relay); c api, proxy, scheduler and worker, no executor. Sandboxes land
 * on both executors and are reached through a's and c's proxies (daemon, exposed port), c's SSH gateway, a
 * tunnel WebSocket and the logs route; policy, suspend, resume and snapshot asked of c run on b; a sandbox from
 * b's snapshot lands on b. b is killed: its sandboxes end executor_lost, new ones land on a. A parse under way on
 * c dies with c and finishes on b when b comes back (removing what its old sandboxes left); a comes back within
 * executorLostSecs and adopts its sandboxes. Namespaces, the bridge, leftovers and the schema are removed at the
 * end, also after a failure.
 */

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
const skip = clusterSkip();
if (process.env.CI === "true" && skip) test("several hosts", () => assert.fail(`cannot run: ${skip}`));

const cleanups = cleanupsAfterAll();

type Host = ClusterHost;

test("three hosts: placement on both executors, proxies across hosts, executor_lost, a parse survives its worker host", {
  skip,
  timeout: 600_000,
}, async () => {
  const cluster: Cluster = await createCluster({
    databaseUrl: databaseUrl as string,
    names: ["a", "b", "c"],
    onLog: (host, line) => process.stderr.write(`${host}: ${line}\n`),
  });
  cleanups.push(() => cluster.dispose());
  const { hosts, kill } = cluster;
  const roles: Record<string, string> = {
    a: "api,proxy,scheduler,executor",
    b: "executor,worker",
    c: "api,proxy,scheduler,worker",
  };
  const start = (host: Host) =>
    cluster.start(
      host,
      roles[host.name],
      { executorLostSecs: 10, ...(process.env.SVC_HOSTS_TEST_LOG ? { logLevel: "info" } : {}) },
      { workers: 1, leaseSecs: 2, pollIntervalMs: 100 },
    );
  const [a, b, c] = hosts;
  // The first host migrates the schema and bootstraps the project; the others join it.
  await start(a);
  await Promise.all([start(b), start(c)]);
  const apiKey = readFileSync(path.join(a.dataDir, "api-key"), "utf8").trim();
  const store = await openStore({ databaseUrl: cluster.localDatabaseUrl });
  cleanups.push(() => store.close());

  const call = (host: Host, method: string, route: string, body?: unknown) =>
    callApi(host, apiKey, method, route, body);
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
  for (const host of [a, c, a, c]) {
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
    for (const host of [a, c]) {
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

  // An exposed port of a sandbox on b, through a's and c's proxies.
  const exposed = await call(c, "PATCH", `/sandboxes/${onB}`, { exposed_ports: [8080] });
  assert.equal(exposed.status, 200, JSON.stringify(exposed.body));
  const serving = await fetch(`http://${c.address}:${c.proxyPort}/sandboxes/${onB}/api/v1/processes`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ command: "python3", args: ["-m", "http.server", "8080", "--bind", "0.0.0.0"] }),
  });
  assert.equal(serving.status, 201, await serving.text());
  const viaPort = (host: Host) =>
    new Promise<number>((resolve) => {
      const req = http.get(
        {
          host: host.address,
          port: host.proxyPort,
          path: "/",
          headers: { host: `8080-${onB}.sandbox.localhost`, authorization: `Bearer ${apiKey}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", () => resolve(0));
    });
  for (const host of [c, a]) {
    await eventually(`port 8080 through ${host.name}`, async () =>
      (await viaPort(host)) === 200 ? true : undefined,
    );
  }

  // Operations only b's executor can do, asked of c (no executor): they run on b, errors included.
  const named = await call(c, "PATCH", `/sandboxes/${onB}`, { name: "on-b" });
  assert.equal(named.status, 200, JSON.stringify(named.body));
  const unresolvable = await call(c, "PATCH", `/sandboxes/${onB}`, {
    network: { allow_internet_access: false, allow_out: ["no-such-host.invalid"] },
  });
  assert.equal(unresolvable.status, 400, JSON.stringify(unresolvable.body));
  assert.equal(unresolvable.body.code, "INVALID_REQUEST");
  const closed = await call(c, "PATCH", `/sandboxes/${onB}`, { network: { allow_internet_access: false } });
  assert.equal(closed.status, 200, JSON.stringify(closed.body));
  const suspended = await call(c, "POST", `/sandboxes/${onB}/suspend`);
  assert.equal(suspended.status, 202, JSON.stringify(suspended.body));
  assert.equal((await sandbox(onB)).status, "suspended");
  assert.match((await viaProxy(a, onB, "/api/v1/info")).text, /SANDBOX_NOT_RUNNING/);
  const resumed = await call(c, "POST", `/sandboxes/${onB}/resume`);
  assert.equal(resumed.status, 202, JSON.stringify(resumed.body));
  assert.equal((await viaProxy(a, onB, "/api/v1/info")).status, 200);
  // A snapshot taken on b (asked of c) is on b's disk: a sandbox started from it, through a, lands on b.
  const snap = await call(c, "POST", `/sandboxes/${onB}/snapshot`, {});
  assert.equal(snap.status, 202, JSON.stringify(snap.body));
  await eventually("the snapshot", async () => {
    const { body } = await call(a, "GET", `/snapshots/${snap.body.snapshot_id}`);
    assert.notEqual(body.status, "failed", JSON.stringify(body));
    return body.status === "completed" ? body : undefined;
  });
  const restored = await call(a, "POST", "/sandboxes", {
    snapshot_id: snap.body.snapshot_id,
    resources: { cpus: 0.5, memory_mb: 256 },
  });
  assert.equal(restored.status, 200, JSON.stringify(restored.body));
  const fromSnapshot = await eventually("the sandbox from the snapshot", async () => {
    const row = await sandbox(restored.body.sandbox_id);
    assert.notEqual(row.status, "terminated", JSON.stringify(row));
    return row.status === "running" ? row : undefined;
  });
  assert.equal(fromSnapshot.executor_id, "local-b");

  // b runs neither the API nor the proxy: nothing listens there but its relay.
  for (const port of [8900, 9443, 2222]) {
    const probe = net.connect(port, b.address);
    const [error] = (await once(probe, "error")) as [NodeJS.ErrnoException];
    assert.equal(error.code, "ECONNREFUSED", `port ${port} of b`);
  }

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
  for (const id of [...on("local-b"), restored.body.sandbox_id]) {
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
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const words of ["First page, uploaded through host a", "Second page, parsed on host b"]) {
    pdf.addPage().drawText(words, { x: 72, y: 700, size: 14, font });
  }
  const { body: file } = await api.upload(new Uint8Array(await pdf.save()), "two-pages.pdf", {
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
  await start(b);
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
  assert.match(JSON.stringify(parsed.chunks), /parsed on host b/);

  // a dies and comes back within executorLostSecs: it adopts its running sandboxes, which answer again.
  await kill(a, "SIGKILL");
  await start(a);
  for (const id of [...on("local-a"), more.body.sandbox_id]) {
    assert.equal((await sandbox(id)).status, "running");
    assert.equal((await viaProxy(a, id, "/api/v1/info")).status, 200);
  }

  // The end: every sandbox deleted through a; both executors remove theirs.
  for (const id of [...created, more.body.sandbox_id]) await call(a, "DELETE", `/sandboxes/${id}`);
  for (const host of [a, b]) {
    await eventually(`${host.name}'s sandboxes removed`, async () =>
      readdirSync(path.join(host.dataDir, "sandboxes")).length === 0 ? true : undefined,
    );
  }
  for (const host of hosts) await kill(host, "SIGTERM");
});
