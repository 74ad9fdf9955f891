import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { RunningDaemon } from "@svc/daemon";
import { type ClientOptions, WebSocket } from "ws";
import { startHostSandbox } from "../host-sandbox.testing.ts";
import { startTestServer, type TestServer } from "../testing.ts";

/** The proxy with a certificate: HTTPS and wss to the daemon, https:// sandbox URLs, plain HTTP refused. */
let server: TestServer;
let daemon: RunningDaemon;
let dir: string;
let sandboxId: string;
let sandboxUrl: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "svc-tls-"));
  execFileSync(
    "openssl",
    [
      ...[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
      ],
      ...["-subj", "/CN=sandbox.localhost", "-addext", "subjectAltName=DNS:*.sandbox.localhost,IP:127.0.0.1"],
      ...["-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")],
    ],
    { stdio: "ignore" },
  );
  server = await startTestServer({
    proxyTlsCert: path.join(dir, "cert.pem"),
    proxyTlsKey: path.join(dir, "key.pem"),
  });
  const host = await startHostSandbox(server);
  sandboxId = host.id;
  daemon = host.daemon;
  const record = (await (
    await fetch(`${server.url}/sandboxes/${sandboxId}`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    })
  ).json()) as { sandbox_url: string };
  // A *.localhost domain: the path form on the proxy's address, https now.
  assert.equal(record.sandbox_url, `https://127.0.0.1:${server.proxyPort}/sandboxes/${sandboxId}`);
  sandboxUrl = record.sandbox_url;
});

after(async () => {
  await daemon?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the proxy serves HTTPS with the configured certificate and refuses plain HTTP", async () => {
  const host = `${sandboxId}.sandbox.localhost`;
  const status = await new Promise<number>((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port: server.proxyPort,
        path: "/api/v1/info",
        servername: host,
        ca: readFileSync(path.join(dir, "cert.pem")),
        headers: { host, authorization: `Bearer ${server.apiKey}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });
  assert.equal(status, 200);
  await assert.rejects(fetch(`http://127.0.0.1:${server.proxyPort}/api/v1/info`, { headers: { host } }));
  // The sandbox URL itself, its certificate checked against the address it names.
  const viaUrl = await new Promise<number>((resolve, reject) => {
    const req = https.get(
      `${sandboxUrl}/api/v1/info`,
      { ca: readFileSync(path.join(dir, "cert.pem")), headers: { authorization: `Bearer ${server.apiKey}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
  });
  assert.equal(viaUrl, 200);
});

test("a TCP tunnel through the HTTPS proxy (wss) carries 8 MiB both ways and half-closes", async () => {
  const echo = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.pipe(socket);
    socket.on("error", () => {});
  });
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  try {
    // `ws` passes TLS options such as servername on to tls.connect.
    const options: ClientOptions & { servername: string } = {
      headers: { "x-svc-sandbox-id": sandboxId, authorization: `Bearer ${server.apiKey}` },
      ca: readFileSync(path.join(dir, "cert.pem")),
      servername: `${sandboxId}.sandbox.localhost`,
    };
    const ws = new WebSocket(
      `wss://127.0.0.1:${server.proxyPort}/api/v1/tunnels/tcp?port=${(echo.address() as net.AddressInfo).port}`,
      options,
    );
    const echoed = createHash("sha256");
    let length = 0;
    ws.on("message", (data: Buffer) => {
      echoed.update(data);
      length += data.length;
    });
    await once(ws, "open");
    const payload = randomBytes(8 * 1024 * 1024);
    ws.send(payload);
    // An empty frame is the tunnel's FIN: the echo server ends, and the tunnel closes 1000.
    ws.send(Buffer.alloc(0));
    const [code] = (await once(ws, "close")) as [number];
    assert.equal(code, 1000);
    assert.equal(length, payload.length);
    assert.equal(echoed.digest("hex"), createHash("sha256").update(payload).digest("hex"));
  } finally {
    echo.close();
  }
});
