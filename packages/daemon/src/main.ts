#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { flushCompileCache } from "node:module";
import { parseArgs } from "node:util";
import { PROCESS_DEFAULTS_FILE, RUNTIME_PORT } from "@svc/contract/runtime";
import { buildDaemon, startDaemon } from "./daemon.ts";
import { ProcessCgroups } from "./processes/process-cgroups.ts";

/** When this process's modules were loaded, in ms since it started (see the start-up line below). */
const codeLoadedAt = performance.now();

const USAGE = `usage: svc-daemon [--port ${RUNTIME_PORT}] [--host 0.0.0.0]
                  [--auth-secret S | --auth-secret-file F | env SVC_DAEMON_AUTH_SECRET]
                  [--sandbox-id ID] [--default-user U] [--default-env NAME=VALUE]... [--default-working-dir DIR]
                  [--setpriv-command JSON-ARGV] [--memory-cgroup DIR] [--process-cgroups DIR]
                  [--spool-dir DIR]
                  [--max-output-memory-bytes N] [--log-level silent|error|warn|info|debug]
       svc-daemon --warm-up

The in-sandbox runtime daemon. Every route but /api/v1/health needs the sandbox proxy's forwarded-auth header,
signed with the auth secret for the sandbox id (default: env SVC_SANDBOX_ID, else "local").

--warm-up builds the daemon as it would serve (every route, ready) without listening, writes the Node compile
cache (NODE_COMPILE_CACHE) and exits: run once to make later starts load compiled code.`;

function fail(message: string): never {
  process.stderr.write(`svc-daemon: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function integer(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(`--${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** `--default-env NAME=VALUE` flags (an OCI image's ENV, from the executor) as an object. */
function defaultEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) fail(`--default-env must be NAME=VALUE, got ${JSON.stringify(pair)}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** `--setpriv-command '["/path/ld.so", …, "/path/setpriv"]'`: how PTYs run setpriv (a JSON array of strings). */
function setprivCommand(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  let argv: unknown;
  try {
    argv = JSON.parse(text);
  } catch {}
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
    fail("--setpriv-command must be a JSON array of strings");
  }
  return argv;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "auth-secret": { type: "string" },
      "auth-secret-file": { type: "string" },
      "sandbox-id": { type: "string" },
      "default-user": { type: "string" },
      "default-env": { type: "string", multiple: true },
      "default-working-dir": { type: "string" },
      "setpriv-command": { type: "string" },
      "memory-cgroup": { type: "string" },
      "process-cgroups": { type: "string" },
      "spool-dir": { type: "string" },
      "max-output-memory-bytes": { type: "string" },
      "log-level": { type: "string" },
      "warm-up": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const flags = parsed.values;
if (flags.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

if (flags["warm-up"]) {
  const built = buildDaemon({
    authSecret: "warm-up",
    sandboxId: "warm-up",
    logLevel: "silent",
    log: () => {},
  });
  await built.app.ready();
  await built.close();
  flushCompileCache();
  process.exit(0);
}

// The secret is read once and removed from the environment, so no child process inherits it.
const envSecret = process.env.SVC_DAEMON_AUTH_SECRET;
delete process.env.SVC_DAEMON_AUTH_SECRET;
let authSecret = flags["auth-secret"];
if (authSecret === undefined && flags["auth-secret-file"] !== undefined) {
  try {
    authSecret = readFileSync(flags["auth-secret-file"], "utf8").trim();
  } catch (error) {
    fail(`cannot read --auth-secret-file: ${(error as Error).message}`);
  }
}
authSecret ??= envSecret;
if (!authSecret)
  fail("an auth secret is required (--auth-secret, --auth-secret-file or SVC_DAEMON_AUTH_SECRET)");

const logLevel = flags["log-level"] ?? "error";
if (!["silent", "fatal", "error", "warn", "info", "debug", "trace"].includes(logLevel)) {
  fail("--log-level must be one of silent, error, warn, info, debug");
}

// A request never takes the daemon down: a stray error is logged and the daemon carries on serving.
process.on("uncaughtException", (error) => {
  process.stderr.write(`svc-daemon: uncaught exception (ignored): ${error.stack ?? error.message}\n`);
});
process.on("unhandledRejection", (reason) => {
  process.stderr.write(
    `svc-daemon: unhandled rejection (ignored): ${String((reason as Error)?.stack ?? reason)}\n`,
  );
});

// Each process tree in its own cgroup (given by the executor); without them, process groups.
let processCgroups: ProcessCgroups | undefined;
if (flags["process-cgroups"]) {
  const log = (message: string) => process.stderr.write(`svc-daemon: ${message}\n`);
  try {
    processCgroups = new ProcessCgroups(flags["process-cgroups"], log);
  } catch (error) {
    log(`process cgroups unavailable, using process groups: ${(error as Error).message}`);
  }
}

let daemon: Awaited<ReturnType<typeof startDaemon>>;
try {
  daemon = await startDaemon({
    host: flags.host ?? "0.0.0.0",
    port: integer("port", flags.port, 0, 65535) ?? RUNTIME_PORT,
    authSecret,
    // A template built from a Dockerfile gives its processes defaults (ENV, WORKDIR, USER) in its root.
    processDefaultsFile: PROCESS_DEFAULTS_FILE,
    sandboxId: flags["sandbox-id"] ?? process.env.SVC_SANDBOX_ID ?? "local",
    logLevel,
    defaultUser: flags["default-user"],
    defaultEnv: defaultEnv(flags["default-env"] ?? []),
    defaultWorkingDir: flags["default-working-dir"],
    setprivCommand: setprivCommand(flags["setpriv-command"]),
    memoryCgroup: flags["memory-cgroup"],
    processCgroups,
    spoolDir: flags["spool-dir"],
    maxOutputMemoryBytes: integer("max-output-memory-bytes", flags["max-output-memory-bytes"], 4096, 2 ** 40),
  });
} catch (error) {
  process.stderr.write(`svc-daemon: cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
// Start-up phases for the executor's start timeline: the process's start (epoch ms) and, in ms from it, Node's
// own bootstrap done, the daemon's code loaded, and listening.
const startup = {
  origin: performance.timeOrigin,
  node: performance.nodeTiming.bootstrapComplete,
  code: codeLoadedAt,
  listening: performance.now(),
};
process.stderr.write(`svc-daemon: start-up ${JSON.stringify(startup)}\n`);
process.stderr.write(`svc-daemon: listening on ${daemon.url}\n`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 10000);
    force.unref();
    daemon.close().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`svc-daemon: shutdown failed: ${error.message}\n`);
        process.exit(1);
      },
    );
  });
}
