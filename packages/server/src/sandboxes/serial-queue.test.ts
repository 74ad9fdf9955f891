import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyedQueue } from "./serial-queue.ts";

/** A job that runs only when released, recording when it starts and ends. */
function gate(log: string[], name: string) {
  let release!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  const job = async () => {
    log.push(`${name} start`);
    try {
      await done;
    } finally {
      log.push(`${name} end`);
    }
  };
  return { job, release, fail };
}

test("jobs of one key run one at a time in order, a failed one does not stop the next", async () => {
  const queue = new KeyedQueue();
  const log: string[] = [];
  const a = gate(log, "a");
  const b = gate(log, "b");
  const c = gate(log, "c");
  const ra = queue.run("sb", a.job);
  const rb = queue.run("sb", b.job);
  const rc = queue.run("sb", c.job);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ["a start"]);
  a.fail(new Error("a failed"));
  await assert.rejects(ra, /a failed/);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ["a start", "a end", "b start"]);
  b.release();
  await rb;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ["a start", "a end", "b start", "b end", "c start"]);
  c.release();
  await rc;
  assert.deepEqual(log.slice(-1), ["c end"]);
});

test("keys are independent, and settled waits for a key's queued jobs without their failures", async () => {
  const queue = new KeyedQueue();
  const log: string[] = [];
  const one = gate(log, "one");
  const two = gate(log, "two");
  const r1 = queue.run("x", one.job);
  const r2 = queue.run("y", two.job);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log.sort(), ["one start", "two start"]);
  let settled = false;
  const waiting = queue.settled("x").then(() => {
    settled = true;
  });
  two.release();
  await r2;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false, "settled resolved before the key's job ended");
  one.fail(new Error("boom"));
  await assert.rejects(r1, /boom/);
  await waiting;
  assert.equal(settled, true);
  // An idle key: settled resolves at once, and a new job runs.
  await queue.settled("never");
  await queue.run("x", async () => {
    log.push("again");
  });
  assert.ok(log.includes("again"));
});
