import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { checkLxcfs, ensureLxcfs, sandboxCpuList } from "./lxcfs.ts";
import { missingPrerequisite } from "./test-support.ts";

test("sandboxCpuList: as many CPUs as the sandbox has, spread by slot; none when it has them all", () => {
  assert.equal(sandboxCpuList(1, 4, 0), "0");
  assert.equal(sandboxCpuList(1, 4, 5), "1");
  assert.equal(sandboxCpuList(0.5, 4, 3), "3");
  assert.equal(sandboxCpuList(2, 4, 3), "3,0");
  assert.equal(sandboxCpuList(1.5, 2, 0), undefined);
  assert.equal(sandboxCpuList(8, 4, 1), undefined);
});

const skip = missingPrerequisite(["lxcfs", "umount"]);

/** The pid lxcfs wrote into its pid file. */
function lxcfsPid(dir: string): number {
  return Number(readFileSync(`${dir}.pid`, "utf8").trim());
}

describe("lxcfs started by the executor", { skip }, () => {
  let base: string | undefined;
  let dir = "";

  after(async () => {
    if (!base) return;
    try {
      process.kill(lxcfsPid(dir), "SIGKILL");
    } catch {
      // Not running.
    }
    try {
      execFileSync("umount", ["-l", dir], { stdio: "ignore" });
    } catch {
      // Not mounted.
    }
    await rm(base, { recursive: true, force: true });
  });

  test("serves /proc files; killed, its dead mount is replaced by a new lxcfs at the next check", {
    timeout: 120_000,
  }, async () => {
    base = await mkdtemp(join(tmpdir(), "svc-lxcfs-"));
    dir = join(base, "lxcfs");
    assert.equal(await ensureLxcfs({ dir }), dir);
    assert.match(await readFile(join(dir, "proc", "meminfo"), "utf8"), /^MemTotal:/m);
    const first = lxcfsPid(dir);

    // Killed as CI kills every process of a session: the FUSE mount stays, dead.
    process.kill(first, "SIGKILL");
    let error: NodeJS.ErrnoException | undefined;
    const deadline = Date.now() + 30_000;
    while (!error && Date.now() < deadline) {
      try {
        await readFile(join(dir, "proc", "meminfo"), "utf8");
        await sleep(50);
      } catch (caught) {
        error = caught as NodeJS.ErrnoException;
      }
    }
    // "Transport endpoint is not connected" (ECONNABORTED while the connection is being torn down).
    assert.ok(["ENOTCONN", "ECONNABORTED"].includes(error?.code ?? ""), String(error));

    assert.equal(await checkLxcfs({ dir }), dir);
    assert.match(await readFile(join(dir, "proc", "meminfo"), "utf8"), /^MemTotal:/m);
    assert.notEqual(lxcfsPid(dir), first);
  });
});
