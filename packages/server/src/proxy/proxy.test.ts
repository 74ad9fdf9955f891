import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "@svc/daemon";
import { Client, NotFoundError, type Sandbox } from "@svc/sdk";
import { WebSocket, WebSocketServer } from "ws";
import { startHostSandbox } from "../host-sandbox.testing.ts";
import { startTestServer, type TestServer } from "../testing.ts";

/**
 * The proxy against a real daemon running on this host (no executor needed): the sandbox row is pointed at the
 * daemon the way the executor would after a start. Everything else is the real path: key → project → sandbox →
 * signed forwarded auth → daemon, through the SDK.
 */
describe("sandbox proxy with a daemon on the host", () => {
  let server: TestServer;
  let daemon: RunningDaemon;
  let client: Client;
  let sandbox: Sandbox;
  let userServer: http.Server;
  let userPort: number;
  let wss: WebSocketServer;

  before(async () => {
    server = await startTestServer({ executor: "none" });
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    // A user service on the sandbox address: HTTP, SSE and WebSocket.
    userServer = http.createServer((req, res) => {
      if (req.url === "/sse") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        let n = 0;
        const timer = setInterval(() => {
          res.write(`data: ${n++}\n\n`);
          if (n === 3) {
            clearInterval(timer);
            res.end();
          }
        }, 20);
        return;
      }
      res.writeHead(200, {
        "content-type": "text/plain",
        "x-saw-authorization": String(req.headers.authorization ?? ""),
      });
      res.end(`hello from ${req.url}`);
    });
    wss = new WebSocketServer({ server: userServer });
    wss.on("connection", (ws) => ws.on("message", (data, binary) => ws.send(data, { binary })));
    userServer.listen(0, "127.0.0.1");
    await once(userServer, "listening");
    userPort = (userServer.address() as AddressInfo).port;
    const host = await startHostSandbox(server, { name: "proxied", exposedPorts: [userPort] });
    daemon = host.daemon;
    sandbox = await client.sandboxes.get(host.id);
  });
  after(async () => {
    wss?.close();
    userServer?.close();
    await daemon?.close();
    await server?.stop();
  });

  /** A GET through the proxy with exactly these headers (fetch would not send a Host of our choosing). */
  function proxy(path: string, headers: Record<string, string>) {
    return new Promise<{
      status: number;
      headers: http.IncomingHttpHeaders;
      text: () => string;
      json: () => unknown;
    }>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: server.proxyPort, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: () => body,
            json: () => JSON.parse(body),
          });
        });
      });
      req.on("error", reject);
      req.end();
    });
  }

  test("run, files and follow work through the proxy with the SDK", async () => {
    const result = await sandbox.run("sh", { args: ["-c", "echo hi; echo oops >&2; exit 3"] });
    assert.equal(result.exitCode, 3);
    assert.equal(result.stdout, "hi\n");
    assert.equal(result.stderr, "oops\n");
    const dir = `/tmp/svc-proxy-test-${process.pid}`;
    await sandbox.files.write(`${dir}/a.txt`, "contents\n");
    assert.equal(new TextDecoder().decode(await sandbox.files.read(`${dir}/a.txt`)), "contents\n");
    assert.deepEqual(
      (await sandbox.files.list(dir)).map((e) => e.name),
      ["a.txt"],
    );
    await sandbox.files.delete(`${dir}/a.txt`);
    await assert.rejects(sandbox.files.read(`${dir}/a.txt`), NotFoundError);
    const proc = await sandbox.processes.start({
      command: "sh",
      args: ["-c", "for i in 1 2 3; do echo $i; sleep 0.05; done"],
    });
    const lines: string[] = [];
    for await (const event of sandbox.processes.follow(proc.pid)) lines.push(event.line);
    assert.deepEqual(lines, ["1", "2", "3"]);
  });

  test("the proxy refuses what it must, with the documented codes", async () => {
    const key = { authorization: `Bearer ${server.apiKey}` };
    const cases: [Record<string, string>, number, string][] = [
      [{ ...key }, 400, "MISSING_SANDBOX_ID"],
      [{ "x-svc-sandbox-id": sandbox.id }, 401, "UNAUTHORIZED"],
      [{ ...key, "x-svc-sandbox-id": "sbx-nosuchsandbox" }, 404, "SANDBOX_NOT_FOUND"],
      [{ authorization: "Bearer svc_apiKey_wrong", "x-svc-sandbox-id": sandbox.id }, 401, "UNAUTHORIZED"],
      [{ ...key, host: `${userPort + 1}-${sandbox.id}.sandbox.localhost` }, 403, "PORT_NOT_EXPOSED"],
    ];
    for (const [headers, status, code] of cases) {
      const response = await proxy("/api/v1/info", headers);
      assert.equal(response.status, status, JSON.stringify(headers));
      assert.equal((response.json() as { code: string }).code, code);
    }
    // Another project's key: not found, not forbidden.
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "proxy-other");
    const otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
    const foreign = await proxy("/api/v1/info", {
      authorization: `Bearer ${otherKey}`,
      "x-svc-sandbox-id": sandbox.id,
    });
    assert.equal(foreign.status, 404);
    // Host forms reach it too: <id>.<domain>, <name>.<domain>, <id>.local.
    for (const host of [
      `${sandbox.id}.sandbox.localhost`,
      `proxied.sandbox.localhost:9443`,
      `${sandbox.id}.local`,
    ]) {
      const response = await proxy("/api/v1/info", { ...key, host });
      assert.equal(response.status, 200, host);
    }
    // The path form, the sandbox URL of a local install: any Host, no header; the prefix is not forwarded
    // (the daemon checks the signature over the path it is given, so a wrong one would be a 401).
    for (const path of [`/sandboxes/${sandbox.id}/api/v1/info`, "/sandboxes/proxied/api/v1/info"]) {
      const response = await proxy(path, { ...key, host: `127.0.0.1:${server.proxyPort}` });
      assert.equal(response.status, 200, path);
      assert.equal(typeof (response.json() as { version: unknown }).version, "string");
    }
    assert.equal((await proxy("/sandboxes/sbx-nosuchsandbox/api/v1/info", key)).status, 404);
    assert.equal((await proxy(`/sandboxes/${sandbox.id}/api/v1/nothing-here`, key)).status, 404);
  });

  test("the daemon itself refuses requests without the proxy's signature", async () => {
    const direct = await fetch(`${daemon.url}/api/v1/info`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    assert.equal(direct.status, 401);
  });

  test("exposed ports: HTTP, SSE and WebSocket pass through; the API key does not enter the sandbox", async () => {
    const host = `${userPort}-${sandbox.id}.sandbox.localhost`;
    const plain = await proxy("/hello", { authorization: `Bearer ${server.apiKey}`, host });
    assert.equal(plain.status, 200);
    assert.equal(plain.text(), "hello from /hello");
    assert.equal(plain.headers["x-saw-authorization"], "");
    // On a user port the path is the user's own, /sandboxes/... included.
    const userPath = await proxy(`/sandboxes/${sandbox.id}/x`, {
      authorization: `Bearer ${server.apiKey}`,
      host,
    });
    assert.equal(userPath.text(), `hello from /sandboxes/${sandbox.id}/x`);
    const sse = await proxy("/sse", { authorization: `Bearer ${server.apiKey}`, host });
    assert.equal(sse.text(), "data: 0\n\ndata: 1\n\ndata: 2\n\n");
    // Without a key the user port is refused until the sandbox allows unauthenticated access.
    assert.equal((await proxy("/hello", { host })).status, 401);
    await sandbox.update({ allow_unauthenticated_access: true });
    assert.equal((await proxy("/hello", { host })).status, 200);
    assert.equal((await proxy("/api/v1/info", { host: `${sandbox.id}.sandbox.localhost` })).status, 401);

    const ws = new WebSocket(`ws://127.0.0.1:${server.proxyPort}/echo`, { headers: { host } });
    await once(ws, "open");
    ws.send(Buffer.from([1, 2, 3]));
    const [data] = await once(ws, "message");
    assert.deepEqual([...(data as Buffer)], [1, 2, 3]);
    ws.close();
    await sandbox.update({ allow_unauthenticated_access: false });
  });

  test("a sandbox that is not running answers 503", async () => {
    const pending = await client.sandboxes.create({});
    const response = await proxy("/api/v1/info", {
      authorization: `Bearer ${server.apiKey}`,
      "x-svc-sandbox-id": pending.id,
    });
    assert.equal(response.status, 503);
    assert.equal((response.json() as { code: string }).code, "SANDBOX_NOT_RUNNING");
  });
});
