import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { runProgram, SpawnError, spawnHelper } from "./spawn-helper.ts";

/** Generous: the machine running the suite may be loaded. */
const TIMEOUT = 120_000;
const LIMITS = { maxStdoutBytes: 1 << 20, maxStderrBytes: 1 << 16 };

/** The parent pid of a process, or null when it is gone (a zombie, not yet reaped, counts as gone). */
async function parentOf(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[0] === "Z" ? null : Number(fields[1]);
}

/** The pids of the living children of a process, named `name`. */
async function childrenOf(pid: number, name: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (stat.includes(`(${name})`) && (await parentOf(Number(entry))) === pid) found.push(Number(entry));
  }
  return found;
}

/** Polls `check` every 20 ms until it holds, for at most a minute. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe("the spawn helper", { timeout: TIMEOUT }, () => {
  test("runs a program from its own process, stdin in and stdout, stderr and exit back", async () => {
    const result = await runProgram("sh", ["-c", "cat; echo oops >&2; exit 3"], {
      ...LIMITS,
      input: Buffer.from("pages\n"),
    });
    assert.equal(result.stdout.toString(), "pages\n");
    assert.equal(result.stderr, "oops\n");
    assert.deepEqual([result.code, result.signal, result.overflow], [3, null, false]);
    const helper = spawnHelper.pid;
    assert.ok(helper !== null && helper !== process.pid);
    // The program is the helper's child, not this process's.
    const aborted = await runProgram("sleep", ["30"], { ...LIMITS, signal: AbortSignal.timeout(200) });
    assert.equal(aborted.signal, "SIGKILL", "an abort kills the program");
  });

  test("a missing program is a SpawnError with the system's code", async () => {
    await assert.rejects(runProgram("svc-no-such-program", [], LIMITS), (error: unknown) => {
      assert.ok(error instanceof SpawnError);
      assert.equal(error.code, "ENOENT");
      return true;
    });
  });

  test("output beyond the limit kills the program", async () => {
    const result = await runProgram("yes", [], { ...LIMITS, maxStdoutBytes: 4096 });
    assert.equal(result.overflow, true);
    assert.ok(result.stdout.length <= 4096);
  });

  test("a program that crashes is an exit by its signal; the helper goes on", async () => {
    const crashed = await runProgram("sh", ["-c", "kill -SEGV $$"], LIMITS);
    assert.deepEqual([crashed.code, crashed.signal], [null, "SIGSEGV"]);
    const next = await runProgram("echo", ["next"], LIMITS);
    assert.equal(next.stdout.toString(), "next\n");
  });

  test("a CPU limit kills a program that works past it and spares one that only waits as long", async () => {
    const busy = await runProgram("sh", ["-c", "while :; do :; done"], { ...LIMITS, cpuLimitMs: 200 });
    assert.deepEqual([busy.cpuLimited, busy.signal], [true, "SIGKILL"]);
    assert.ok(busy.cpuMs !== null && busy.cpuMs > 200, `read ${busy.cpuMs} ms`);
    // Waiting a second uses next to no CPU time: a limit in wall time would have stopped it.
    const idle = await runProgram("sleep", ["1"], { ...LIMITS, cpuLimitMs: 200 });
    assert.deepEqual([idle.cpuLimited, idle.code, idle.signal], [false, 0, null]);
    assert.ok(idle.cpuMs !== null && idle.cpuMs < 200, `read ${idle.cpuMs} ms`);
    // Without a limit the program's time is not read.
    assert.equal((await runProgram("true", [], LIMITS)).cpuMs, null);
  });

  test("the helper dying mid-run: its programs run again on a new helper", async () => {
    const run = runProgram("sh", ["-c", "sleep 0.5; cat"], { ...LIMITS, input: Buffer.from("kept") });
    await until(async () => spawnHelper.pid !== null, "a helper runs");
    const first = spawnHelper.pid as number;
    await until(async () => (await childrenOf(first, "sh")).length > 0, "the program runs");
    spawnHelper.kill();
    const result = await run;
    assert.equal(result.stdout.toString(), "kept");
    assert.equal(result.code, 0);
    assert.notEqual(spawnHelper.pid, first, "a new helper");
    await until(async () => (await parentOf(first)) === null, "the first helper is gone");
  });

  test("when its parent dies, the helper kills its programs and exits; idle, it keeps no process alive", async () => {
    const module = new URL("./spawn-helper.ts", import.meta.url).href;
    const script = `
      const { runProgram, spawnHelper } = await import(${JSON.stringify(module)});
      await runProgram("true", [], { maxStdoutBytes: 1024, maxStderrBytes: 1024 });
      if (process.argv[1] === "idle") { console.log("idle"); } else {
        runProgram("sleep", ["300"], { maxStdoutBytes: 1024, maxStderrBytes: 1024 });
        console.log(String(spawnHelper.pid));
      }
    `;
    // Idle after its one program, the helper does not keep the process from ending by itself.
    const idle = spawn(process.execPath, ["--input-type=module", "-e", script, "idle"], { stdio: "pipe" });
    const idleExit = await new Promise<number | null>((resolve) => idle.on("exit", resolve));
    assert.equal(idleExit, 0);
    // Busy, then killed: its helper and the helper's program go too.
    const parent = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "pipe" });
    let out = "";
    parent.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await until(async () => /^\d+\n/.test(out), "the parent prints its helper's pid");
    const helper = Number(out.trim());
    assert.equal(await parentOf(helper), parent.pid);
    await until(async () => (await childrenOf(helper, "sleep")).length === 1, "the helper runs sleep");
    const [sleep] = await childrenOf(helper, "sleep");
    parent.kill("SIGKILL");
    await until(async () => (await parentOf(helper)) === null, "the helper is gone");
    await until(async () => (await parentOf(sleep)) === null, "its program is gone");
  });
});
