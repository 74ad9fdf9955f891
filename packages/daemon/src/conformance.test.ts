/**
 * Conformance of the runtime daemon's process, info and health routes: a real daemon on 127.0.0.1, real
 * processes, requests signed as the sandbox proxy signs them.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "./daemon.ts";
import { type DaemonTestClient, isProcessGone, startTestDaemon } from "./testing.ts";

const isRoot = process.getuid?.() === 0;
/** Small, so that most tests here also exercise the spool. */
const MEMORY_CAP = 64 * 1024;

let daemon: RunningDaemon;
let client: DaemonTestClient;

before(async () => {
  process.env.SVC_DAEMON_TEST_SECRET_VARIABLE = "must-not-leak";
  ({ daemon, client } = await startTestDaemon({
    maxOutputMemoryBytes: MEMORY_CAP,
    bodyLimitBytes: 1024 * 1024,
  }));
});
after(async () => {
  await daemon.close();
  delete process.env.SVC_DAEMON_TEST_SECRET_VARIABLE;
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function start(request: Record<string, unknown>) {
  const response = await client.request("POST", "/api/v1/processes", { json: request });
  assert.equal(response.status, 201, response.text);
  return response.json as { pid: number; handle: number; status: string };
}

/** Waits until the process has ended and returns its record. */
async function ended(pid: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.request("GET", `/api/v1/processes/${pid}`);
    assert.equal(response.status, 200, response.text);
    if (response.json.status !== "running") return response.json;
    if (Date.now() > deadline) assert.fail(`process ${pid} still running`);
    await sleep(20);
  }
}

async function outputLines(pid: number, which = "output"): Promise<string[]> {
  const response = await client.request("GET", `/api/v1/processes/${pid}/${which}`);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json.pid, pid);
  assert.equal(response.json.line_count, response.json.lines.length);
  return response.json.lines;
}

function assertError(
  response: { status: number; json: unknown; text: string },
  status: number,
  code?: string,
) {
  assert.equal(response.status, status, response.text);
  const body = response.json as { error?: unknown; code?: unknown };
  assert.equal(typeof body?.error, "string", response.text);
  assert.equal(typeof body?.code, "string", response.text);
  if (code) assert.equal(body.code, code, response.text);
}

describe("forwarded auth", () => {
  test("requests without the header, or with a wrong signature, are 401", async () => {
    for (const path of ["/api/v1/info", "/api/v1/processes", "/api/v1/processes/1"]) {
      assertError(await client.request("GET", path, { auth: false }), 401, "UNAUTHORIZED");
      assertError(await client.request("GET", path, { auth: "bad" }), 401, "UNAUTHORIZED");
    }
    assertError(
      await client.request("POST", "/api/v1/processes/run", { json: { command: "true" }, auth: false }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("a signature is bound to its method and path", async () => {
    const headers = client.headersFor("GET", "/api/v1/info");
    const response = await fetch(`${client.baseUrl}/api/v1/processes`, { headers });
    assert.equal(response.status, 401);
  });

  test("health is open; info answers signed requests", async () => {
    const health = await client.request("GET", "/api/v1/health", { auth: false });
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { healthy: true });
    const info = await client.request("GET", "/api/v1/info");
    assert.equal(info.status, 200);
    const version = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
    assert.equal(info.json.version, version);
    assert.ok(Number.isInteger(info.json.uptime_secs) && info.json.uptime_secs >= 0);
    assert.ok(Number.isInteger(info.json.running_processes));
    assert.ok(Number.isInteger(info.json.total_processes));
  });
});

describe("run", () => {
  test("SSE frames: start, output lines tagged with their stream, exit code", async () => {
    const result = await client.run({
      command: "sh",
      args: ["-c", "echo out1; echo err1 >&2; echo out2; exit 7"],
    });
    assert.equal(result.status, 200);
    assert.match(result.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.ok(
      result.events.every((e) => e.event === "message"),
      "plain data frames, no event names",
    );
    const [first, ...rest] = result.frames;
    assert.deepEqual(Object.keys(first).sort(), ["handle", "pid", "started_at"]);
    assert.ok(first.pid > 0 && first.handle > 0 && first.started_at > 0);
    assert.deepEqual(rest.at(-1), { exit_code: 7 });
    const lines = rest.slice(0, -1);
    for (const line of lines) {
      assert.deepEqual(Object.keys(line).sort(), ["line", "stream", "timestamp"]);
      assert.ok(line.timestamp >= first.started_at);
    }
    assert.deepEqual(
      lines.filter((l) => l.stream === "stdout").map((l) => l.line),
      ["out1", "out2"],
    );
    assert.deepEqual(
      lines.filter((l) => l.stream === "stderr").map((l) => l.line),
      ["err1"],
    );
    const record = await client.request("GET", `/api/v1/processes/${first.pid}`);
    assert.equal(record.json.status, "exited");
    assert.equal(record.json.exit_code, 7);
  });

  test("a process ended by a signal ends with {signal, oom_killed: false}", async () => {
    const result = await client.run({ command: "sh", args: ["-c", "kill -TERM $$"] });
    assert.deepEqual(result.frames.at(-1), { signal: 15, oom_killed: false });
  });

  test("args, env, working_dir; the daemon's own environment is not inherited", async () => {
    const result = await client.run({
      command: "sh",
      args: ["-c", 'echo "$1|$FOO|$PWD"; env', "sh", "arg one"],
      env: { FOO: "bar baz" },
      working_dir: "/tmp",
    });
    const lines = result.lines.map((l: { line: string }) => l.line);
    assert.equal(lines[0], "arg one|bar baz|/tmp");
    assert.ok(lines.some((l: string) => l.startsWith("PATH=")));
    assert.ok(lines.some((l: string) => l.startsWith("HOME=")));
    assert.ok(lines.some((l: string) => l === "LANG=C.UTF-8"));
    assert.ok(!lines.some((l: string) => l.startsWith("SVC_DAEMON_TEST_SECRET_VARIABLE")));
  });

  test("stdin is closed and the mode fields are accepted", async () => {
    const result = await client.run({ command: "cat", stdin_mode: "pipe", stdout_mode: "discard" });
    assert.deepEqual(result.frames.at(-1), { exit_code: 0 });
  });

  test("a command that cannot start is a 400 before any stream", async () => {
    for (const command of ["/no/such/command", "no-such-command-anywhere", "/etc/passwd"]) {
      const response = await client.request("POST", "/api/v1/processes/run", { json: { command } });
      assertError(response, 400, "SPAWN_FAILED");
    }
  });

  test("timeout kills the process and its descendants", async () => {
    const started = Date.now();
    const result = await client.run({
      command: "sh",
      args: ["-c", "sleep 1000 & echo $!; wait"],
      timeout: 1,
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 5000, `took ${elapsed} ms`);
    assert.deepEqual(result.frames.at(-1), { signal: 9, oom_killed: false });
    const sleeper = Number(result.lines[0].line);
    assert.ok(sleeper > 0);
    for (let i = 0; i < 50 && !(await isProcessGone(sleeper)); i++) await sleep(20);
    assert.ok(await isProcessGone(sleeper), "the background sleep is gone");
  });

  test("the exit frame comes soon after the exit even while a background child holds the output open", async () => {
    const started = Date.now();
    const result = await client.run({ command: "sh", args: ["-c", "sleep 3 & echo hi"] });
    assert.ok(Date.now() - started < 2500, `took ${Date.now() - started} ms`);
    assert.deepEqual(
      result.lines.map((l: { line: string }) => l.line),
      ["hi"],
    );
    assert.deepEqual(result.frames.at(-1), { exit_code: 0 });
    await client.request("DELETE", `/api/v1/processes/${result.frames[0].pid}`);
  });

  test("a client that goes away takes its process with it", async () => {
    const response = await client.fetch("POST", "/api/v1/processes/run", {
      json: { command: "sleep", args: ["1000"] },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    const first = JSON.parse(new TextDecoder().decode(value).replace(/^data: /, ""));
    await reader.cancel();
    const record = await ended(first.pid);
    assert.equal(record.status, "signaled");
    assert.equal(record.signal, 9);
  });
});

describe("output", () => {
  test("a 10 MB line comes through intact: run, output, follow", async () => {
    const size = 10 * 1024 * 1024;
    const script = `head -c ${size} /dev/zero | tr '\\0' 'x'; echo; echo after`;
    const result = await client.run({ command: "sh", args: ["-c", script] });
    assert.equal(result.lines.length, 2);
    assert.equal(result.lines[0].line.length, size);
    assert.ok(/^x+$/.test(result.lines[0].line));
    assert.equal(result.lines[1].line, "after");
    const pid = result.frames[0].pid;
    const lines = await outputLines(pid);
    assert.equal(lines[0].length, size);
    const follow = await client.sse("GET", `/api/v1/processes/${pid}/stdout/follow`);
    assert.equal(JSON.parse(follow.events[0].data).line.length, size);
    assert.equal(follow.events.at(-1)?.event, "eof");
  });

  test("binary bytes, CRLF, no trailing newline", async () => {
    const result = await client.run({
      command: "sh",
      args: ["-c", "printf '\\377\\376bin\\001\\n'; printf 'crlf\\r\\nmid\\rcr\\r\\n'; printf 'last'"],
    });
    assert.deepEqual(
      result.lines.map((l: { line: string }) => l.line),
      ["\udcff\udcfebin\u0001", "crlf", "mid\rcr", "last"],
    );
    // The escapes travel as \udcXX in the JSON text.
    assert.ok(result.events[1].data.includes("\\udcff\\udcfebin\\u0001"));
    assert.deepEqual(await outputLines(result.frames[0].pid), [
      "\udcff\udcfebin\u0001",
      "crlf",
      "mid\rcr",
      "last",
    ]);
  });

  test("a follower from the beginning gets every line after the output outgrew the memory cap", async () => {
    const count = 200_000; // about 1.3 MB, twenty times the cap
    const { pid } = await start({ command: "sh", args: ["-c", `sleep 0.3; seq 1 ${count}; echo done >&2`] });
    const live = client.sse("GET", `/api/v1/processes/${pid}/output/follow`);
    await ended(pid);
    const replay = await client.sse("GET", `/api/v1/processes/${pid}/output/follow`);
    const expected = Array.from({ length: count }, (_, i) => String(i + 1));
    for (const follow of [await live, replay]) {
      assert.equal(follow.status, 200);
      assert.equal(follow.events.at(-1)?.event, "eof");
      assert.equal(follow.events.at(-1)?.data, "{}");
      const data = follow.events.slice(0, -1).map((e) => JSON.parse(e.data));
      assert.ok(follow.events.slice(0, -1).every((e) => e.event === "output"));
      assert.deepEqual(
        data.filter((d) => d.stream === "stdout").map((d) => d.line),
        expected,
      );
      assert.deepEqual(
        data.filter((d) => d.stream === "stderr").map((d) => d.line),
        ["done"],
      );
    }
    assert.deepEqual(await outputLines(pid, "stdout"), expected);
    assert.deepEqual(await outputLines(pid, "stderr"), ["done"]);
    assert.equal((await outputLines(pid)).length, count + 1);
    const stdoutFollow = await client.sse("GET", `/api/v1/processes/${pid}/stdout/follow`);
    const first = JSON.parse(stdoutFollow.events[0].data);
    assert.deepEqual(Object.keys(first).sort(), ["line", "timestamp"], "no stream field on stdout/follow");
    assert.equal(stdoutFollow.events.length, count + 1);
  });

  test("stderr/follow replays, then follows live lines, then eof", async () => {
    const { pid } = await start({
      command: "sh",
      args: ["-c", "echo early >&2; echo ignored; sleep 0.4; echo late >&2"],
    });
    await sleep(150);
    const follow = await client.sse("GET", `/api/v1/processes/${pid}/stderr/follow`);
    assert.deepEqual(
      follow.events.map((e) => [e.event, e.event === "eof" ? e.data : JSON.parse(e.data).line]),
      [
        ["output", "early"],
        ["output", "late"],
        ["eof", "{}"],
      ],
    );
  });

  test("discarded streams are not captured", async () => {
    const { pid } = await start({
      command: "sh",
      args: ["-c", "echo out; echo err >&2"],
      stdout_mode: "discard",
    });
    await ended(pid);
    assert.deepEqual(await outputLines(pid), ["err"]);
    const follow = await client.sse("GET", `/api/v1/processes/${pid}/stdout/follow`);
    assert.deepEqual(
      follow.events.map((e) => e.event),
      ["eof"],
    );
  });

  test("hundreds of concurrent processes", async () => {
    const count = 200;
    const runs = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.run({ command: "sh", args: ["-c", 'echo "start $0"; sleep 0.3; echo "end $0"', String(i)] }),
      ),
    );
    runs.forEach((run, i) => {
      assert.equal(run.status, 200);
      assert.deepEqual(
        run.lines.map((l: { line: string }) => l.line),
        [`start ${i}`, `end ${i}`],
      );
      assert.deepEqual(run.frames.at(-1), { exit_code: 0 });
    });
    const started = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        start({ command: "sh", args: ["-c", "sleep 0.3; echo $0", String(i)] }),
      ),
    );
    const outputs = await Promise.all(
      started.map((p) => client.sse("GET", `/api/v1/processes/${p.pid}/output/follow`)),
    );
    outputs.forEach((follow, i) => {
      assert.deepEqual(
        follow.events.map((e) => (e.event === "eof" ? "eof" : JSON.parse(e.data).line)),
        [String(i), "eof"],
      );
    });
  });
});

describe("process lifecycle", () => {
  test("start answers 201 with every field; list and get show it", async () => {
    const created = await client.request("POST", "/api/v1/processes", {
      json: {
        command: "sleep",
        args: ["5"],
        env: { A: "1" },
        working_dir: "/",
        stdin_mode: "pipe",
        stdout_mode: "capture",
        stderr_mode: "capture",
      },
    });
    assert.equal(created.status, 201);
    const record = created.json;
    assert.deepEqual(Object.keys(record).sort(), [
      "args",
      "command",
      "ended_at",
      "exit_code",
      "handle",
      "oom_killed",
      "pid",
      "signal",
      "started_at",
      "status",
      "stdin_writable",
    ]);
    assert.equal(record.status, "running");
    assert.equal(record.stdin_writable, true);
    assert.equal(record.command, "sleep");
    assert.deepEqual(record.args, ["5"]);
    assert.equal(record.exit_code, null);
    assert.equal(record.signal, null);
    assert.equal(record.ended_at, null);
    assert.equal(record.oom_killed, false);
    const list = await client.request("GET", "/api/v1/processes");
    assert.equal(list.status, 200);
    assert.ok(list.json.processes.some((p: { pid: number }) => p.pid === record.pid));
    const got = await client.request("GET", `/api/v1/processes/${record.pid}`);
    assert.deepEqual(got.json, record);
    const info = await client.request("GET", "/api/v1/info");
    assert.ok(info.json.running_processes >= 1);
    assert.ok(info.json.total_processes >= info.json.running_processes);
    assert.equal((await client.request("DELETE", `/api/v1/processes/${record.pid}`)).status, 204);
  });

  test("unknown pids are 404 PROCESS_NOT_FOUND on every process route", async () => {
    const pid = 4_000_000;
    for (const [method, path] of [
      ["GET", ""],
      ["DELETE", ""],
      ["GET", "/stdout"],
      ["GET", "/stderr"],
      ["GET", "/output"],
      ["GET", "/stdout/follow"],
      ["GET", "/stderr/follow"],
      ["GET", "/output/follow"],
      ["POST", "/stdin/close"],
    ]) {
      assertError(await client.request(method, `/api/v1/processes/${pid}${path}`), 404, "PROCESS_NOT_FOUND");
    }
    assertError(
      await client.request("POST", `/api/v1/processes/${pid}/signal`, { json: { signal: "TERM" } }),
      404,
      "PROCESS_NOT_FOUND",
    );
    assertError(
      await client.request("POST", `/api/v1/processes/${pid}/stdin`, { body: "x" }),
      404,
      "PROCESS_NOT_FOUND",
    );
  });

  test("DELETE kills the whole process group", async () => {
    const { pid } = await start({ command: "sh", args: ["-c", "sleep 1000 & echo $!; wait"] });
    let lines: string[] = [];
    for (let i = 0; i < 100 && lines.length === 0; i++) {
      lines = await outputLines(pid, "stdout");
      if (lines.length === 0) await sleep(20);
    }
    const sleeper = Number(lines[0]);
    assert.ok(!(await isProcessGone(sleeper)));
    const deleted = await client.request("DELETE", `/api/v1/processes/${pid}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, "");
    const record = await ended(pid);
    assert.equal(record.status, "signaled");
    assert.equal(record.signal, 9);
    assert.equal(record.exit_code, null);
    assert.ok(record.ended_at >= record.started_at);
    for (let i = 0; i < 50 && !(await isProcessGone(sleeper)); i++) await sleep(20);
    assert.ok(await isProcessGone(sleeper), "the group's other member is gone");
    assert.equal((await client.request("DELETE", `/api/v1/processes/${pid}`)).status, 204, "idempotent");
  });

  test("signals by name and number; invalid signals are 400", async () => {
    const byName = await start({ command: "sleep", args: ["100"] });
    const named = await client.request("POST", `/api/v1/processes/${byName.pid}/signal`, {
      json: { signal: "SIGTERM" },
    });
    assert.equal(named.status, 200);
    assert.deepEqual(named.json, { success: true });
    const record = await ended(byName.pid);
    assert.equal(record.status, "signaled");
    assert.equal(record.signal, 15);

    const byNumber = await start({ command: "sleep", args: ["100"] });
    const numbered = await client.request("POST", `/api/v1/processes/${byNumber.pid}/signal`, {
      json: { signal: 10 },
    });
    assert.deepEqual(numbered.json, { success: true });
    assert.equal((await ended(byNumber.pid)).signal, 10);

    const target = await start({ command: "sleep", args: ["100"] });
    const path = `/api/v1/processes/${target.pid}/signal`;
    assertError(await client.request("POST", path, { json: { signal: "SIGNOPE" } }), 400, "INVALID_SIGNAL");
    assert.deepEqual((await client.request("POST", path, { json: { signal: "term" } })).json, {
      success: true,
    });
    for (const signal of [0, 65, -9, "", "SIG TERM", 9.5, null]) {
      assertError(await client.request("POST", path, { json: { signal } }), 400);
    }
    assertError(await client.request("POST", path, { json: {} }), 400);
    // An ended process is not signalled (its pid may belong to someone else by now).
    await ended(target.pid);
    const late = await client.request("POST", path, { json: { signal: "TERM" } });
    assert.deepEqual(late.json, { success: false });
  });

  test("stdin: raw bytes, close, STDIN_NOT_WRITABLE", async () => {
    const { pid } = await start({ command: "cat", stdin_mode: "pipe" });
    const write = (body: string | Uint8Array, headers?: Record<string, string>) =>
      client.request("POST", `/api/v1/processes/${pid}/stdin`, { body, headers });
    assert.equal((await write("hello ")).status, 204);
    assert.equal((await write('{"not": json', { "content-type": "application/json" })).status, 204);
    assert.equal((await write(new Uint8Array([0x0a, 0xff, 0x00, 0x0a]))).status, 204);
    assert.equal((await client.request("POST", `/api/v1/processes/${pid}/stdin/close`)).status, 204);
    const record = await ended(pid);
    assert.equal(record.exit_code, 0);
    assert.equal(record.stdin_writable, false);
    assert.deepEqual(await outputLines(pid), ['hello {"not": json', "\udcff\u0000"]);
    assertError(await write("late"), 400, "STDIN_NOT_WRITABLE");

    const closed = await start({ command: "sleep", args: ["5"] });
    assertError(
      await client.request("POST", `/api/v1/processes/${closed.pid}/stdin`, { body: "x" }),
      400,
      "STDIN_NOT_WRITABLE",
    );
    assertError(
      await client.request("POST", `/api/v1/processes/${closed.pid}/stdin/close`),
      400,
      "STDIN_NOT_WRITABLE",
    );
    await client.request("DELETE", `/api/v1/processes/${closed.pid}`);

    const open = await start({ command: "sleep", args: ["5"], stdin_mode: "pipe" });
    assert.equal((await client.request("POST", `/api/v1/processes/${open.pid}/stdin/close`)).status, 204);
    assert.equal((await client.request("POST", `/api/v1/processes/${open.pid}/stdin/close`)).status, 204);
    assertError(
      await client.request("POST", `/api/v1/processes/${open.pid}/stdin`, { body: "x" }),
      400,
      "STDIN_NOT_WRITABLE",
    );
    await client.request("DELETE", `/api/v1/processes/${open.pid}`);
  });

  test("a large stdin write streams through", async () => {
    const { pid } = await start({ command: "wc", args: ["-c"], stdin_mode: "pipe" });
    const body = new Uint8Array(8 * 1024 * 1024).fill(0x61);
    assert.equal((await client.request("POST", `/api/v1/processes/${pid}/stdin`, { body })).status, 204);
    await client.request("POST", `/api/v1/processes/${pid}/stdin/close`);
    await ended(pid);
    assert.deepEqual(await outputLines(pid), [String(body.length)]);
  });

  test("working_dir that does not exist, or is a file, is 400 INVALID_WORKING_DIR", async () => {
    for (const working_dir of ["/no/such/dir", "/etc/passwd"]) {
      assertError(
        await client.request("POST", "/api/v1/processes", { json: { command: "true", working_dir } }),
        400,
        "INVALID_WORKING_DIR",
      );
      assertError(
        await client.request("POST", "/api/v1/processes/run", { json: { command: "true", working_dir } }),
        400,
        "INVALID_WORKING_DIR",
      );
    }
  });
});

describe("users", { skip: !isRoot && "needs root (CI runs as root)" }, () => {
  const idOf = async (user: unknown) => {
    const result = await client.run({
      command: "sh",
      args: ["-c", 'echo "$(id -u):$(id -g):$HOME:$USER"'],
      user,
    });
    assert.equal(result.status, 200, result.body);
    return result.lines[0].line;
  };

  test("a user name, a uid, uid:gid and {uid, gid}", async () => {
    const nobody = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .map((l) => l.split(":"))
      .find((f) => f[0] === "nobody");
    assert.ok(nobody, "the host has a nobody user");
    const [, , uid, gid, , home] = nobody;
    assert.equal(await idOf("nobody"), `${uid}:${gid}:${home}:nobody`);
    assert.equal(await idOf(uid), `${uid}:${gid}:${home}:nobody`);
    assert.equal(await idOf("1234:4321"), "1234:4321:/:1234");
    assert.equal(await idOf({ uid: 1234, gid: 99 }), "1234:99:/:1234");
    assert.equal(await idOf({ uid: 4321 }), "4321:4321:/:4321");
    assert.equal(await idOf({ name: "nobody", gid: 7 }), `${uid}:7:${home}:nobody`);
    assert.equal(await idOf("0"), "0:0:/root:root");
  });

  test("the default user is the daemon's resolved default", async () => {
    const user = daemon.processes.defaultUser;
    const result = await client.run({ command: "sh", args: ["-c", 'echo "$(id -u):$(id -g)"'] });
    assert.equal(result.lines[0].line, `${user.uid}:${user.gid}`);
  });

  test("unknown users and bad forms are 400, not a crash", async () => {
    for (const path of ["/api/v1/processes", "/api/v1/processes/run"]) {
      assertError(
        await client.request("POST", path, { json: { command: "true", user: "no-such-user" } }),
        400,
        "INVALID_USER",
      );
      for (const user of ["1:2:3", "a b", { uid: -1 }, { uid: "1" }, { uid: 1, name: "root" }, [], 7, ""]) {
        assertError(await client.request("POST", path, { json: { command: "true", user } }), 400);
      }
    }
    assert.equal((await client.request("GET", "/api/v1/health")).status, 200);
  });
});

describe("bad input", () => {
  test("every kind of bad request gets a documented 4xx with {error, code}", async () => {
    const post = (path: string, json: unknown) => client.request("POST", path, { json });
    for (const path of ["/api/v1/processes", "/api/v1/processes/run"]) {
      assertError(await post(path, {}), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "" }), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "true", unknown_field: 1 }), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "true", args: "x" }), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "true", args: [1] }), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "true", env: { A: 1 } }), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "true", stdin_mode: "maybe" }), 400, "INVALID_REQUEST");
      assertError(await post(path, { command: "a\u0000b" }), 400, "INVALID_REQUEST");
      assertError(await post(path, [1, 2]), 400);
      assertError(await post(path, "just a string"), 400);
      assertError(
        await client.request("POST", path, {
          body: "{not json",
          headers: { "content-type": "application/json" },
        }),
        400,
        "INVALID_JSON",
      );
      const huge = JSON.stringify({ command: "true", args: ["x".repeat(2 * 1024 * 1024)] });
      assertError(
        await client.request("POST", path, { body: huge, headers: { "content-type": "application/json" } }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
    }
    for (const timeout of [-1, 0, 1.5, "10", 1e12]) {
      assertError(await post("/api/v1/processes/run", { command: "true", timeout }), 400, "INVALID_REQUEST");
    }
    assertError(await post("/api/v1/processes", { command: "true", timeout: 5 }), 400, "INVALID_REQUEST");
    for (const pid of ["abc", "0", "-1", "1.5", "99999999999"]) {
      assertError(await client.request("GET", `/api/v1/processes/${pid}`), 400);
    }
    assertError(await client.request("GET", "/api/v1/no-such-route"), 404, "ROUTE_NOT_FOUND");
    assertError(await client.request("PUT", "/api/v1/processes"), 404);
    const health = await client.request("GET", "/api/v1/health");
    assert.deepEqual(health.json, { healthy: true });
  });
});
