import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  decodePtyServerFrame,
  encodePtyInput,
  encodePtyReady,
  encodePtyResize,
  MAX_PTY_SESSIONS,
} from "@svc/contract";
import type { WebSocket } from "ws";
import type { RunningDaemon } from "../daemon.ts";
import { type DaemonTestClient, isProcessGone, startTestDaemon } from "../testing.ts";
import { closed, mustOpenWs, openWs } from "../websocket-testing.ts";

/** A PTY WebSocket client that collects output text and the exit frame. */
class Terminal {
  readonly ws: WebSocket;
  output = "";
  exitCode: number | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters: (() => void)[] = [];

  constructor(ws: WebSocket) {
    this.ws = ws;
    this.closed = closed(ws);
    ws.on("message", (data: Buffer) => {
      const decoded = decodePtyServerFrame(data);
      assert.ok(decoded.ok);
      if (decoded.frame.type === "output") this.output += Buffer.from(decoded.frame.data).toString("utf8");
      else this.exitCode = decoded.frame.code;
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  static async open(client: DaemonTestClient, id: string, token: string, ready = true): Promise<Terminal> {
    const terminal = new Terminal(await mustOpenWs(client, `/api/v1/pty/${id}/ws?token=${token}`));
    if (ready) terminal.ws.send(encodePtyReady());
    return terminal;
  }

  send(text: string): void {
    this.ws.send(encodePtyInput(text));
  }

  async waitFor(pattern: RegExp | string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const matches = () =>
      typeof pattern === "string" ? this.output.includes(pattern) : pattern.test(this.output);
    while (!matches()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${pattern}; got …${JSON.stringify(this.output.slice(-300))}`);
      await new Promise<void>((wake) => {
        this.#waiters.push(wake);
        setTimeout(wake, 50);
      });
    }
  }
}

describe("PTY sessions", () => {
  let daemon: RunningDaemon;
  let client: DaemonTestClient;

  before(async () => {
    ({ daemon, client } = await startTestDaemon({ ptyIdleTimeoutMs: 0 }));
  });
  after(async () => {
    await daemon?.close();
  });

  async function create(body: Record<string, unknown>): Promise<{ session_id: string; token: string }> {
    const response = await client.request("POST", "/api/v1/pty", { json: body });
    assert.equal(response.status, 201, response.text);
    return response.json;
  }

  test("create clamps the size; list, get, resize and delete", async () => {
    const { session_id, token } = await create({ command: "sh", rows: 0, cols: 5000 });
    assert.match(session_id, /^pty_/);
    assert.ok(token.length >= 32);
    let got = await client.request("GET", `/api/v1/pty/${session_id}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.rows, 1);
    assert.equal(got.json.cols, 1000);
    assert.equal(got.json.status, "running");
    assert.equal(got.json.command, "sh");
    assert.equal(got.json.token, undefined);
    const defaults = await create({ command: "sh" });
    const second = await client.request("GET", `/api/v1/pty/${defaults.session_id}`);
    assert.equal(second.json.rows, 24);
    assert.equal(second.json.cols, 80);

    const list = await client.request("GET", "/api/v1/pty");
    assert.deepEqual(
      list.json.sessions.map((s: { session_id: string }) => s.session_id).sort(),
      [session_id, defaults.session_id].sort(),
    );

    const resized = await client.request("POST", `/api/v1/pty/${session_id}/resize`, {
      json: { rows: 40, cols: 120 },
    });
    assert.equal(resized.status, 204);
    assert.equal(resized.text, "");
    got = await client.request("GET", `/api/v1/pty/${session_id}`);
    assert.deepEqual([got.json.rows, got.json.cols], [40, 120]);
    await client.request("POST", `/api/v1/pty/${session_id}/resize`, { json: { rows: 9999 } });
    got = await client.request("GET", `/api/v1/pty/${session_id}`);
    assert.deepEqual([got.json.rows, got.json.cols], [500, 120]);

    const pid = got.json.pid;
    for (const id of [session_id, defaults.session_id]) {
      assert.equal((await client.request("DELETE", `/api/v1/pty/${id}`)).status, 204);
    }
    assert.ok(await isProcessGone(pid));
    assert.equal((await client.request("GET", "/api/v1/pty")).json.sessions.length, 0);
  });

  test("unknown sessions are 404 SESSION_NOT_FOUND; bad bodies 400; unsigned requests 401", async () => {
    for (const [method, path, json] of [
      ["GET", "/api/v1/pty/pty_nosuch", undefined],
      ["DELETE", "/api/v1/pty/pty_nosuch", undefined],
      ["POST", "/api/v1/pty/pty_nosuch/resize", { rows: 10, cols: 10 }],
    ] as const) {
      const response = await client.request(method, path, { json });
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.equal(response.json.code, "SESSION_NOT_FOUND");
    }
    const missing = await openWs(client, "/api/v1/pty/pty_nosuch/ws?token=x");
    assert.ok(!missing.ok);
    assert.equal(missing.status, 404);
    assert.equal(missing.json?.code, "SESSION_NOT_FOUND");
    assert.equal((await client.request("POST", "/api/v1/pty", { json: {} })).status, 400);
    const notFound = await client.request("POST", "/api/v1/pty", {
      json: { command: "no-such-command-xyz" },
    });
    assert.equal(notFound.status, 400);
    assert.equal(notFound.json.code, "SPAWN_FAILED");
    const badDir = await client.request("POST", "/api/v1/pty", {
      json: { command: "sh", working_dir: "/no/such/dir" },
    });
    assert.equal(badDir.json.code, "INVALID_WORKING_DIR");
    assert.equal((await client.request("GET", "/api/v1/pty", { auth: false })).status, 401);
    assert.equal(
      (await client.request("POST", "/api/v1/pty", { json: { command: "sh" }, auth: "bad" })).status,
      401,
    );
    const unsigned = await openWs(client, "/api/v1/pty/pty_nosuch/ws?token=x", { auth: false });
    assert.ok(!unsigned.ok);
    assert.equal(unsigned.status, 401);
  });

  test("the WebSocket: token checks, READY, echo, resize, exit frame and close exit:<code>", async () => {
    const { session_id, token } = await create({
      command: "sh",
      env: { PS1: "$ " },
      working_dir: "/tmp",
      rows: 30,
      cols: 100,
    });
    const bad = await openWs(client, `/api/v1/pty/${session_id}/ws?token=wrong`);
    assert.ok(!bad.ok);
    assert.equal(bad.status, 403);
    assert.equal(bad.json?.code, "INVALID_TOKEN");
    const none = await openWs(client, `/api/v1/pty/${session_id}/ws`);
    assert.ok(!none.ok);
    assert.equal(none.status, 403);

    // The token in the X-PTY-Token header works as well as in the query.
    const ws = await mustOpenWs(client, `/api/v1/pty/${session_id}/ws`, {
      headers: { "x-pty-token": token },
    });
    const terminal = new Terminal(ws);
    ws.send(encodePtyReady());
    terminal.send("echo TERM=$TERM; pwd; stty size\n");
    await terminal.waitFor(/TERM=xterm-256color\r\n\/tmp\r\n30 100\r\n/);
    ws.send(encodePtyResize(132, 43));
    terminal.send("stty size\n");
    await terminal.waitFor("43 132");
    const record = await client.request("GET", `/api/v1/pty/${session_id}`);
    assert.equal(record.json.client_count, 1);
    assert.deepEqual([record.json.rows, record.json.cols], [43, 132]);
    terminal.send("exit 7\n");
    const close = await terminal.closed;
    assert.equal(terminal.exitCode, 7);
    assert.deepEqual(close, { code: 1000, reason: "exit:7" });
    const ended = await client.request("GET", `/api/v1/pty/${session_id}`);
    assert.equal(ended.json.status, "exited");
    assert.equal(ended.json.exit_code, 7);
    // A client that connects after the end gets the last output, the exit frame and the close.
    const late = await Terminal.open(client, session_id, token);
    assert.deepEqual(await late.closed, { code: 1000, reason: "exit:7" });
    assert.equal(late.exitCode, 7);
    assert.match(late.output, /43 132/);
  });

  test("output before READY is held; a session survives its WebSocket and replays on reconnect", async () => {
    const { session_id, token } = await create({
      command: "sh",
      args: ["-c", "echo before-ready; read line; echo got:$line; read again; echo again:$again"],
    });
    await new Promise((r) => setTimeout(r, 200));
    const first = await Terminal.open(client, session_id, token, false);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(first.output, "", "nothing is sent before READY");
    first.ws.send(encodePtyReady());
    await first.waitFor("before-ready");
    first.send("one\n");
    await first.waitFor("got:one");
    first.ws.terminate();
    await first.closed;
    const record = await client.request("GET", `/api/v1/pty/${session_id}`);
    assert.equal(record.json.status, "running");

    const second = await Terminal.open(client, session_id, token);
    await second.waitFor(/before-ready[\s\S]*got:one/);
    second.send("two\n");
    await second.waitFor("again:two");
    assert.deepEqual(await second.closed, { code: 1000, reason: "exit:0" });
  });

  test("deleting a session closes its WebSockets with 1001", async () => {
    const { session_id, token } = await create({ command: "sleep", args: ["60"] });
    const terminal = await Terminal.open(client, session_id, token);
    const deleted = await client.request("DELETE", `/api/v1/pty/${session_id}`);
    assert.equal(deleted.status, 204);
    assert.equal((await terminal.closed).code, 1001);
    assert.equal((await client.request("GET", `/api/v1/pty/${session_id}`)).status, 404);
  });

  test("a signal ends the session with 128 + the signal", async () => {
    const { session_id, token } = await create({ command: "sh", args: ["-c", "kill -TERM $$"] });
    const terminal = await Terminal.open(client, session_id, token);
    assert.deepEqual(await terminal.closed, { code: 1000, reason: "exit:143" });
  });

  test("large output reaches the client intact with backpressure; large input reaches the program", async () => {
    const { session_id, token } = await create({
      command: "sh",
      args: [
        "-c",
        "stty -echo; head -c 4000000 /dev/zero | tr '\\0' 'x'; echo; echo DONE; head -c 300000 | wc -c",
      ],
    });
    const terminal = await Terminal.open(client, session_id, token);
    // A slow reader: the daemon must pause the PTY rather than buffer without bound.
    terminal.ws.pause();
    await new Promise((r) => setTimeout(r, 300));
    terminal.ws.resume();
    await terminal.waitFor("DONE", 20_000);
    assert.equal(terminal.output.split("x").length - 1, 4_000_000);
    // Canonical mode takes lines of at most 4095 bytes.
    const chunk = `${"y".repeat(999)}\n`;
    for (let i = 0; i < 300; i++) terminal.send(chunk);
    await terminal.waitFor(/300000/, 20_000);
    assert.equal((await terminal.closed).reason, "exit:0");
  });

  test(`the ${MAX_PTY_SESSIONS + 1}th session is 429 TOO_MANY_SESSIONS`, async () => {
    for (const { session_id } of (await client.request("GET", "/api/v1/pty")).json.sessions)
      await client.request("DELETE", `/api/v1/pty/${session_id}`);
    const ids: string[] = [];
    for (let i = 0; i < MAX_PTY_SESSIONS; i++)
      ids.push((await create({ command: "sleep", args: ["60"] })).session_id);
    const refused = await client.request("POST", "/api/v1/pty", { json: { command: "sleep", args: ["60"] } });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.code, "TOO_MANY_SESSIONS");
    await client.request("DELETE", `/api/v1/pty/${ids.pop()}`);
    const again = await create({ command: "true" });
    ids.push(again.session_id);
    await Promise.all(ids.map((id) => client.request("DELETE", `/api/v1/pty/${id}`)));
  });
});

describe("PTY idle timeout", () => {
  test("a session with no client and no input ends after the idle time", async () => {
    const { daemon, client } = await startTestDaemon({ ptyIdleTimeoutMs: 300 });
    try {
      const created = await client.request("POST", "/api/v1/pty", {
        json: { command: "sleep", args: ["60"] },
      });
      const id = created.json.session_id;
      const { pid } = (await client.request("GET", `/api/v1/pty/${id}`)).json;
      const deadline = Date.now() + 5000;
      while ((await client.request("GET", `/api/v1/pty/${id}`)).status === 200) {
        assert.ok(Date.now() < deadline, "the idle session did not end");
        await new Promise((r) => setTimeout(r, 100));
      }
      for (let i = 0; i < 50 && !(await isProcessGone(pid)); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(await isProcessGone(pid));
    } finally {
      await daemon.close();
    }
  });
});
