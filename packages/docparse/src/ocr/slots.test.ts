import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Slots } from "./slots.ts";

test("Slots runs at most `size` tasks at once, in the order they asked", async () => {
  const slots = new Slots(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      slots.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await sleep(10);
        running--;
      }),
    ),
  );
  assert.equal(most, 2);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  assert.equal(slots.busy, 0);
});

test("a task still waiting when its signal aborts is not run, and frees no slot it did not hold", async () => {
  const slots = new Slots(1);
  const controller = new AbortController();
  let ran = false;
  const holder = slots.run(() => sleep(30));
  const waiting = slots.run(async () => {
    ran = true;
  }, controller.signal);
  controller.abort();
  await assert.rejects(waiting, { name: "AbortError" });
  await holder;
  assert.equal(ran, false);
  assert.equal(slots.busy, 0);
  // A task that throws frees its slot.
  await assert.rejects(
    slots.run(() => Promise.reject(new Error("boom"))),
    /boom/,
  );
  assert.equal(await slots.run(async () => 7), 7);
  assert.throws(() => new Slots(0), RangeError);
});
