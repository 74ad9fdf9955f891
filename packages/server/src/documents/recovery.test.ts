import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { openStore } from "../store/store.ts";
import { documentsApi } from "./api.testing.ts";

const script = new URL("./serve.testing.ts", import.meta.url).pathname;
const settings = JSON.stringify({ workers: 1, leaseSecs: 1, pollIntervalMs: 100 });

async function serve(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const child = spawn(process.execPath, [script, dataDir, settings], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await Promise.race([
    once(lines, "line"),
    once(child, "exit").then(([code]) => {
      throw new Error(`the server exited with ${code} before listening`);
    }),
  ])) as [string];
  return { child, ...JSON.parse(line) };
}

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "svc-recovery-"));
});
after(() => rm(dataDir, { recursive: true, force: true }));

test("a job under way when its server is killed completes once after a restart; queued jobs are not lost", async () => {
  const first = await serve(dataDir);
  let api = documentsApi(first);
  const running = await api.expect(200, "POST", "/documents/v2/parse", {
    raw_text: "svc-test:sleep=1500\n\nsurvivor",
  });
  const queued = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "queued behind it" });
  for (;;) {
    const { body } = await api.call("GET", `/documents/v2/parse/${running.parse_id}`);
    if (body.status === "processing") break;
    assert.equal(body.status, "pending");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  first.child.kill("SIGKILL");
  await once(first.child, "exit");

  const second = await serve(dataDir);
  try {
    api = documentsApi(second);
    const result = await api.finished(running.parse_id, 30_000);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.match(result.chunks?.[0].content ?? "", /survivor/);
    assert.equal((await api.finished(queued.parse_id)).status, "successful");
  } finally {
    second.child.kill("SIGTERM");
    await once(second.child, "exit");
  }

  const store = await openStore({ dataDir });
  try {
    const [job] = await store.db.query<{ attempts: number; status: string }>(
      "SELECT attempts, status FROM parse_jobs WHERE id = ?",
      [running.parse_id],
    );
    assert.deepEqual({ ...job, attempts: Number(job.attempts) }, { attempts: 2, status: "successful" });
    const results = await store.db.query("SELECT job_id FROM parse_results WHERE job_id = ?", [
      running.parse_id,
    ]);
    assert.equal(results.length, 1);
    const stuck = await store.db.query("SELECT id FROM parse_jobs WHERE status IN ('pending', 'processing')");
    assert.deepEqual(stuck, []);
  } finally {
    await store.close();
  }
});
