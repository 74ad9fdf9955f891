import assert from "node:assert/strict";
import { test } from "node:test";
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { errorCatalog } from "./errors.ts";
import { platformRoutes } from "./platform.ts";
import { createValidatorCompiler } from "./request-validation.ts";
import type { RouteDef } from "./route.ts";
import { routeSchema } from "./route-http.ts";
import {
  CreatePtySessionRequest,
  clampPtySize,
  DirectoryListing,
  FilePathQuery,
  FollowEvent,
  MAX_PTY_SESSIONS,
  PidParams,
  Process,
  ProcessUser,
  parseProcessUser,
  ResizePtyRequest,
  RUNTIME_PORT,
  RunProcessRequest,
  RunStreamEvent,
  runStreamEventKind,
  runtimeRoutes,
  SignalRequest,
  StartProcessRequest,
  TunnelQuery,
} from "./runtime.ts";
import { sandboxRoutes } from "./sandboxes.ts";

const routes: [string, RouteDef][] = Object.entries(runtimeRoutes);

function accepts(schema: TSchema, values: unknown[]): void {
  const check = Compile(schema);
  for (const value of values) assert.equal(check.Check(value), true, `rejected ${JSON.stringify(value)}`);
}

function rejects(schema: TSchema, values: unknown[]): void {
  const check = Compile(schema);
  for (const value of values) assert.equal(check.Check(value), false, `accepted ${JSON.stringify(value)}`);
}

test("constants", () => {
  assert.equal(RUNTIME_PORT, 9501);
  assert.equal(MAX_PTY_SESSIONS, 64);
});

test("every runtime route is a runtime route under /api/v1/", () => {
  const tags = new Set(["processes", "pty", "files", "ssh", "tunnels", "info"]);
  for (const [name, route] of routes) {
    assert.equal(route.surface, "runtime", name);
    assert.ok(route.path.startsWith("/api/v1/"), name);
    assert.ok(tags.has(route.tag), `${name}: tag ${route.tag}`);
    assert.equal(route.auth, name === "runtimeHealth" ? "none" : "forwarded", name);
    for (const code of route.errors ?? []) assert.ok(Object.hasOwn(errorCatalog, code), `${name}: ${code}`);
    assert.equal(route.status === 204, route.responseKind === "empty", name);
    assert.equal(route.status === 101, route.responseKind === "websocket", name);
    if (route.responseKind === "json" || route.responseKind === "sse") assert.ok(route.response, name);
    if (route.bodyKind === "raw") assert.equal(route.body, undefined, name);
  }
});

test("path placeholders and params schemas agree", () => {
  for (const [name, route] of routes) {
    const placeholders = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    const params = route.params
      ? Object.keys((route.params as { properties: object }).properties).sort()
      : [];
    assert.deepEqual(placeholders, params, name);
  }
});

test("the table holds every runtime operation of the spec, once", () => {
  const expected = [
    "POST /api/v1/processes/run sse",
    "POST /api/v1/processes json",
    "GET /api/v1/processes json",
    "GET /api/v1/processes/{pid} json",
    "DELETE /api/v1/processes/{pid} empty",
    "POST /api/v1/processes/{pid}/signal json",
    "POST /api/v1/processes/{pid}/stdin empty",
    "POST /api/v1/processes/{pid}/stdin/close empty",
    "GET /api/v1/processes/{pid}/stdout json",
    "GET /api/v1/processes/{pid}/stderr json",
    "GET /api/v1/processes/{pid}/output json",
    "GET /api/v1/processes/{pid}/stdout/follow sse",
    "GET /api/v1/processes/{pid}/stderr/follow sse",
    "GET /api/v1/processes/{pid}/output/follow sse",
    "POST /api/v1/pty json",
    "GET /api/v1/pty json",
    "GET /api/v1/pty/{session_id} json",
    "DELETE /api/v1/pty/{session_id} empty",
    "POST /api/v1/pty/{session_id}/resize empty",
    "GET /api/v1/pty/{session_id}/ws websocket",
    "GET /api/v1/files bytes",
    "PUT /api/v1/files empty",
    "DELETE /api/v1/files empty",
    "GET /api/v1/files/list json",
    "POST /api/v1/ssh/enable json",
    "POST /api/v1/ssh/disable json",
    "GET /api/v1/ssh/status json",
    "GET /api/v1/info json",
    "GET /api/v1/logs json",
    "GET /api/v1/health json",
    "GET /api/v1/tunnels/tcp websocket",
  ];
  const actual = routes.map(([, r]) => `${r.method} ${r.path} ${r.responseKind}`);
  assert.deepEqual([...actual].sort(), [...expected].sort());
  assert.equal(runtimeRoutes.startProcess.status, 201);
  assert.equal(runtimeRoutes.createPtySession.status, 201);
  assert.equal(runtimeRoutes.writeProcessStdin.bodyKind, "raw");
  assert.equal(runtimeRoutes.writeSandboxFile.bodyKind, "raw");
});

test("route names do not clash with the control routes", () => {
  for (const name of Object.keys(runtimeRoutes)) {
    assert.ok(!Object.hasOwn(platformRoutes, name) && !Object.hasOwn(sandboxRoutes, name), name);
  }
});

test("start and run requests", () => {
  accepts(StartProcessRequest, [
    { command: "ls" },
    {
      command: "bash",
      args: ["-c", "echo hi"],
      env: { A: "1", PATH: "/usr/bin" },
      working_dir: "/tmp",
      user: "svc-user",
      stdin_mode: "pipe",
      stdout_mode: "discard",
      stderr_mode: "capture",
    },
  ]);
  rejects(StartProcessRequest, [
    {},
    { command: "" },
    { command: 1 },
    { command: "ls", bogus: true },
    { command: "ls", timeout: 5 },
    { command: "ls", args: "-l" },
    { command: "ls", args: [1] },
    { command: "ls", args: ["a\u0000b"] },
    { command: "ls", args: Array.from({ length: 4097 }, () => "x") },
    { command: "ls", args: ["x".repeat(131073)] },
    { command: "x".repeat(4097) },
    { command: "ls", env: { A: 1 } },
    { command: "ls", env: { "A=B": "1" } },
    { command: "ls", env: { "": "1" } },
    { command: "ls", env: Object.fromEntries(Array.from({ length: 4097 }, (_, i) => [`K${i}`, "v"])) },
    { command: "ls", working_dir: "" },
    { command: "ls", stdin_mode: "open" },
    { command: "ls", stdout_mode: "pipe" },
  ]);
  accepts(RunProcessRequest, [
    { command: "ls", timeout: 1 },
    { command: "ls", timeout: 31536000 },
    { command: "ls", stdin_mode: "pipe", stdout_mode: "discard", stderr_mode: "discard" },
  ]);
  rejects(RunProcessRequest, [
    { command: "ls", timeout: 0 },
    { command: "ls", timeout: -1 },
    { command: "ls", timeout: 1.5 },
    { command: "ls", timeout: 31536001 },
    { command: "ls", timeout: "10" },
  ]);
});

test("user forms", () => {
  accepts(ProcessUser, [
    "svc-user",
    "root",
    "_apt",
    "machine$",
    "0",
    "1000",
    "1000:1000",
    { uid: 0, gid: 0 },
    { uid: 1000 },
    { name: "svc-user" },
    { name: "svc-user", gid: 100 },
  ]);
  rejects(ProcessUser, [
    "",
    "a b",
    "1000:",
    ":1000",
    "1:2:3",
    "-1",
    "x".repeat(33),
    "us\u0000er",
    {},
    { uid: -1 },
    { uid: 1.5 },
    { uid: "1000" },
    { uid: 4294967295 },
    { uid: 1, name: "x" },
    { uid: 1, gid: -1 },
    { name: "1000" },
    { name: "" },
    1000,
    null,
  ]);
});

test("parseProcessUser sorts the forms and refuses the rest", () => {
  assert.deepEqual(parseProcessUser("svc-user"), { kind: "name", name: "svc-user" });
  assert.deepEqual(parseProcessUser("1000"), { kind: "ids", uid: 1000 });
  assert.deepEqual(parseProcessUser("1000:50"), { kind: "ids", uid: 1000, gid: 50 });
  assert.deepEqual(parseProcessUser({ uid: 0, gid: 0 }), { kind: "ids", uid: 0, gid: 0 });
  assert.deepEqual(parseProcessUser({ uid: 7 }), { kind: "ids", uid: 7 });
  assert.deepEqual(parseProcessUser({ name: "root", gid: 3 }), { kind: "name", name: "root", gid: 3 });
  for (const bad of [
    "",
    "a b",
    "9999999999",
    "1:9999999999",
    "x".repeat(33),
    { uid: 1, name: "root" },
    { name: "1000" },
    { uid: -1 },
    { uid: 1, extra: true },
    {},
    [],
    null,
    7,
  ]) {
    assert.equal(parseProcessUser(bad), undefined, JSON.stringify(bad));
  }
});

test("signals by number or name", () => {
  accepts(SignalRequest, [
    { signal: 1 },
    { signal: 15 },
    { signal: 64 },
    { signal: "SIGTERM" },
    { signal: "TERM" },
  ]);
  accepts(SignalRequest, [{ signal: "kill" }, { signal: "SIGRTMIN+2" }]);
  rejects(SignalRequest, [
    {},
    { signal: 0 },
    { signal: 65 },
    { signal: 1.5 },
    { signal: "" },
    { signal: "15" },
    { signal: "SIG TERM" },
    { signal: "S".repeat(17) },
    { signal: 15, extra: 1 },
  ]);
});

test("PTY sizes are accepted as any integer and clamped", () => {
  accepts(CreatePtySessionRequest, [
    { command: "bash" },
    { command: "bash", rows: 0, cols: -5 },
    { command: "bash", rows: 100000, cols: 100000, env: { TERM: "xterm-256color" } },
  ]);
  rejects(CreatePtySessionRequest, [
    { command: "bash", rows: 2.5 },
    { command: "bash", cols: "80" },
    { rows: 24 },
  ]);
  accepts(ResizePtyRequest, [{}, { rows: 10 }, { rows: 10, cols: 2000 }]);
  rejects(ResizePtyRequest, [{ rows: 10, extra: 1 }, { cols: null }]);

  assert.deepEqual(clampPtySize({}), { rows: 24, cols: 80 });
  assert.deepEqual(clampPtySize({ rows: 0, cols: -5 }), { rows: 1, cols: 1 });
  assert.deepEqual(clampPtySize({ rows: 501, cols: 1001 }), { rows: 500, cols: 1000 });
  assert.deepEqual(clampPtySize({ rows: 500, cols: 1000 }), { rows: 500, cols: 1000 });
  assert.deepEqual(clampPtySize({ rows: 40.9, cols: Number.POSITIVE_INFINITY }), { rows: 40, cols: 1000 });
  assert.deepEqual(clampPtySize({ rows: Number.NaN, cols: null }), { rows: 24, cols: 80 });
  assert.deepEqual(clampPtySize({ cols: 100 }, { rows: 50, cols: 120 }), { rows: 50, cols: 100 });
  assert.deepEqual(clampPtySize({}, { rows: 9000, cols: 0 }), { rows: 500, cols: 1 });
});

test("files, tunnels and path parameters", () => {
  accepts(FilePathQuery, [{ path: "/tmp/a.txt" }, { path: "relative/b" }, { path: "/a/../b" }]);
  rejects(FilePathQuery, [
    {},
    { path: "" },
    { path: "a\u0000b" },
    { path: "x".repeat(4097) },
    { path: "/", x: 1 },
  ]);
  accepts(TunnelQuery, [{ port: 1 }, { port: 8080 }, { port: 65535 }]);
  rejects(TunnelQuery, [{}, { port: 0 }, { port: 65536 }, { port: -1 }, { port: 80.5 }]);
  accepts(PidParams, [{ pid: 1 }, { pid: 4194304 }]);
  rejects(PidParams, [{ pid: 0 }, { pid: 4194305 }, { pid: -1 }]);
  accepts(DirectoryListing, [
    { path: "/tmp", entries: [{ name: "a", is_dir: false, size: 3, modified_at: 1700000000000 }] },
  ]);
});

test("process records and stream events", () => {
  const running = {
    handle: 1,
    pid: 42,
    status: "running",
    stdin_writable: false,
    command: "sleep",
    args: ["10"],
    started_at: 1700000000000,
    exit_code: null,
    signal: null,
    ended_at: null,
    oom_killed: false,
  };
  accepts(Process, [running, { ...running, status: "oom_killed", signal: 9, oom_killed: true, ended_at: 1 }]);
  rejects(Process, [
    { ...running, status: "zombie" },
    { ...running, oom_killed: undefined },
  ]);

  const events = [
    { handle: 1, pid: 42, started_at: 1700000000000 },
    { line: "hi", timestamp: 1700000000001, stream: "stdout" },
    { exit_code: 0 },
    { signal: 9, oom_killed: true },
  ];
  accepts(RunStreamEvent, events);
  rejects(RunStreamEvent, [
    { line: "hi", timestamp: 1, stream: "pty" },
    { signal: 0, oom_killed: false },
    {},
  ]);
  assert.deepEqual(
    events.map((event) => runStreamEventKind(event as never)),
    ["start", "output", "exit", "exit"],
  );

  accepts(FollowEvent, [{ line: "x", timestamp: 0 }, { line: "x", timestamp: 5, stream: "stderr" }, {}]);
  rejects(FollowEvent, [{ line: "x", timestamp: -1 }]);
});

test("every runtime route's schemas pass the meta-schema check (the daemon compiles them without it)", () => {
  const compile = createValidatorCompiler({ validateSchemas: true });
  for (const route of Object.values(runtimeRoutes) as RouteDef[]) {
    const schema = routeSchema(route);
    for (const [httpPart, part] of [
      ["params", schema.params],
      ["querystring", schema.querystring],
      ["body", schema.body],
    ] as const) {
      if (part) assert.doesNotThrow(() => compile({ schema: part, httpPart }), `${route.path} ${httpPart}`);
    }
  }
});
