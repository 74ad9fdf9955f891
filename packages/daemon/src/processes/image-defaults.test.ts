import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ProcessManager } from "./manager.ts";

const scratch = mkdtempSync(join(tmpdir(), "svc-image-defaults-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `sh -c script` to its end and answers what it wrote to its output file. */
async function run(
  manager: ProcessManager,
  script: string,
  extra: { env?: Record<string, string>; working_dir?: string } = {},
) {
  const out = join(scratch, `out-${Math.random().toString(36).slice(2)}`);
  const started = await manager.start({ command: "/bin/sh", args: ["-c", `${script} >${out}`], ...extra });
  await started.closed;
  assert.equal(started.exitCode, 0);
  return readFileSync(out, "utf8");
}

test("an image's ENV and WORKDIR are the defaults of processes; the request's env and working_dir win", async () => {
  const workdir = join(scratch, "srv-app");
  mkdirSync(workdir);
  const own = `${process.getuid?.()}:${process.getgid?.()}`;
  const manager = new ProcessManager({
    defaultUser: own,
    defaultEnv: { GREETING: "from the image", PATH: "/image/bin:/usr/bin:/bin" },
    defaultWorkingDir: workdir,
    log: () => {},
  });
  try {
    assert.equal(
      await run(manager, 'printf "%s|%s|%s" "$GREETING" "$PWD" "$PATH"'),
      `from the image|${workdir}|/image/bin:/usr/bin:/bin`,
    );
    assert.equal(
      await run(manager, 'printf "%s|%s" "$GREETING" "$PWD"', {
        env: { GREETING: "from the request" },
        working_dir: scratch,
      }),
      `from the request|${scratch}`,
    );
  } finally {
    await manager.close();
  }
  // A WORKDIR the tree lacks falls back to the user's home, as without an image.
  const missing = new ProcessManager({
    defaultUser: own,
    defaultWorkingDir: join(scratch, "absent"),
    log: () => {},
  });
  try {
    assert.notEqual(await run(missing, 'printf "%s" "$PWD"'), join(scratch, "absent"));
  } finally {
    await missing.close();
  }
});
