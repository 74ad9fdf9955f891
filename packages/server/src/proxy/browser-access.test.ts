import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { decodePtyServerFrame, encodePtyInput, encodePtyReady } from "@svc/contract";
import { runtimeSubprotocols } from "@svc/contract/browser-access";
import type { RunningDaemon } from "@svc/daemon";
import { Client, type Sandbox } from "@svc/sdk";
import { WebSocket, WebSocketServer } from "ws";
import { startHostSandbox } from "../host-sandbox.testing.ts";
import { startTestServer, type TestServer } from "../testing.ts";

/**
 * What a web page needs from the proxy, against a real daemon on this host: CORS on the daemon's API (the key in
 * Authorization, never a cookie) and the key as a `bearer.<key>` WebSocket subprotocol, which the daemon never sees.
 */
describe("sandbox proxy for web pages", () => {
  let server: TestServer;
  let daemon: RunningDaemon;
  let sandbox: Sandbox;
  let base: string;
  /** A user's WebSocket service on an exposed port, recording the subprotocols each handshake offered. */
  let userWss: WebSocketServer;
  const offeredToUser: (string | undefined)[] = [];

  before(async () => {
    server = await startTestServer({ executor: "none" });
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    userWss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    userWss.on("connection", (_ws, req) => offeredToUser.push(req.headers["sec-websocket-protocol"]));
    await once(userWss, "listening");
    const userPort = (userWss.address() as AddressInfo).port;
    const host = await startHostSandbox(server, { name: "browser-access", exposedPorts: [userPort] });
    daemon = host.daemon;
    sandbox = await client.sandboxes.get(host.id);
    base = `http://127.0.0.1:${server.proxyPort}/sandboxes/${sandbox.id}`;
  });
  after(async () => {
    userWss?.close();
    await daemon?.close();
    await server?.stop();
  });

  test("a preflight is answered without a key; answers and errors carry CORS headers", async () => {
    const preflight = await fetch(`${base}/api/v1/files?path=/tmp`, {
      method: "OPTIONS",
      headers: {
        origin: "http://console.example",
        "access-control-request-method": "PUT",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /authorization/);
    assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /PUT/);
    assert.equal(preflight.headers.get("access-control-allow-credentials"), null);

    const info = await fetch(`${base}/api/v1/info`, {
      headers: { origin: "http://console.example", authorization: `Bearer ${server.apiKey}` },
    });
    assert.equal(info.status, 200);
    assert.equal(info.headers.get("access-control-allow-origin"), "*");
    await info.body?.cancel();

    const refused = await fetch(`${base}/api/v1/info`, { headers: { origin: "http://console.example" } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("access-control-allow-origin"), "*");
    assert.equal(((await refused.json()) as { code: string }).code, "UNAUTHORIZED");

    // Without an Origin (not a page), no CORS headers are added.
    const plain = await fetch(`${base}/api/v1/info`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    assert.equal(plain.headers.get("access-control-allow-origin"), null);
    await plain.body?.cancel();
  });

  test("a PTY WebSocket authenticates with the bearer subprotocol, which the daemon never sees", async () => {
    const term = await sandbox.pty({ command: "sh", env: { PS1: "$ " } });
    try {
      const url = `${base.replace(/^http/, "ws")}/api/v1/pty/${term.sessionId}/ws?token=${term.token}`;
      // The bearer entry first: a daemon that saw it would pick it (ws picks the first offered).
      const [svc, bearer] = runtimeSubprotocols(server.apiKey);
      const ws = new WebSocket(url, [bearer, svc]);
      let output = "";
      ws.on("message", (data: Buffer) => {
        const decoded = decodePtyServerFrame(data);
        if (decoded.ok && decoded.frame.type === "output")
          output += Buffer.from(decoded.frame.data).toString();
      });
      await once(ws, "open");
      assert.equal(ws.protocol, svc);
      ws.send(encodePtyReady());
      ws.send(encodePtyInput("echo sub-$((40+2))\n"));
      for (let i = 0; i < 400 && !output.includes("sub-42"); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(output.includes("sub-42"), JSON.stringify(output));
      ws.close();
    } finally {
      await term.kill();
    }
  });

  test("a WebSocket with a wrong bearer subprotocol, or none, is refused 401", async () => {
    const term = await sandbox.pty({ command: "sleep", args: ["30"] });
    try {
      const url = `${base.replace(/^http/, "ws")}/api/v1/pty/${term.sessionId}/ws?token=${term.token}`;
      for (const protocols of [runtimeSubprotocols("svc_apiKey_wrong"), ["svc"]]) {
        const ws = new WebSocket(url, protocols);
        ws.on("error", () => {});
        const [req, res] = await once(ws, "unexpected-response");
        assert.equal(res.statusCode, 401, protocols.join());
        res.resume();
        req.destroy();
      }
    } finally {
      await term.kill();
    }
  });

  test("a bearer subprotocol to a user's port authenticates and is not forwarded either", async () => {
    const port = (userWss.address() as AddressInfo).port;
    const ws = new WebSocket(`ws://127.0.0.1:${server.proxyPort}/`, runtimeSubprotocols(server.apiKey), {
      headers: { host: `${port}-${sandbox.id}.sandbox.localhost` },
    });
    await once(ws, "open");
    assert.equal(ws.protocol, "svc");
    ws.close();
    assert.deepEqual(offeredToUser, ["svc"]);
  });
});
