import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "@svc/daemon";
import { startTestServer, type TestServer } from "@svc/server";
import { startHostSandbox } from "@svc/server/host-sandbox";
import * as pty from "node-pty";

const main = path.join(import.meta.dirname, "..", "main.ts");

/**
 * `svc shell` in a real terminal (node-pty gives it a TTY, so raw mode and sizes are exercised) and `svc tunnel`
 * with a real TCP client, against a real server and proxy with a daemon on this host.
 */
describe("svc shell and svc tunnel", () => {
  let server: TestServer;
  let daemon: RunningDaemon;
  let echo: net.Server;
  let echoPort: number;
  let _sandboxId: string;
  let env: Record<string, string>;

  before(async () => {
    server = await startTestServer();
    const host = await startHostSandbox(server, { name: "cli-term" });
    _sandboxId = host.id;
    daemon = host.daemon;
    echo = net.createServer((socket) => socket.pipe(socket)).listen(0, "127.0.0.1");
    await once(echo, "listening");
    echoPort = (echo.address() as net.AddressInfo).port;
    env = {
      PATH: process.env.PATH ?? "",
      SVC_API_URL: server.url,
      SERVICE_API_KEY: server.apiKey,
      SVC_DATA_DIR: "/nonexistent",
      TERM: "xterm",
    };
  });
  after(async () => {
    echo?.close();
    await daemon?.close();
    await server?.stop();
  });

  test("svc shell runs an interactive program in a TTY and exits with its exit code", {
    timeout: 30_000,
  }, async () => {
    const term = pty.spawn(process.execPath, [main, "shell", "cli-term", "--command", "sh"], {
      cols: 100,
      rows: 30,
      env,
    });
    let screen = "";
    term.onData((data) => {
      screen += data;
    });
    const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    const until = async (text: string) => {
      const deadline = Date.now() + 15_000;
      while (!screen.includes(text)) {
        if (Date.now() > deadline)
          assert.fail(`never saw ${JSON.stringify(text)} in ${JSON.stringify(screen)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    term.write("stty size; echo marker-$((40+2))\r");
    await until("marker-42");
    assert.match(screen, /30 100/, "the remote terminal has this terminal's size");
    term.write("exit 7\r");
    assert.equal(await exited, 7);
  });

  test("svc tunnel forwards a local port to a port of the sandbox", { timeout: 30_000 }, async () => {
    const child = spawn(
      process.execPath,
      [main, "tunnel", "cli-term", String(echoPort), "--local-port", "0"],
      {
        env,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    try {
      let stderr = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      const deadline = Date.now() + 15_000;
      let port = 0;
      while (!port) {
        port = Number(/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1] ?? 0);
        if (Date.now() > deadline) assert.fail(`no listener announced: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const socket = net.connect(port, "127.0.0.1");
      await once(socket, "connect");
      const payload = Buffer.alloc(256 * 1024, 7);
      socket.end(payload);
      const chunks: Buffer[] = [];
      for await (const chunk of socket) chunks.push(chunk as Buffer);
      assert.deepEqual(Buffer.concat(chunks), payload);
    } finally {
      child.kill("SIGTERM");
      await once(child, "close");
    }
  });
});
