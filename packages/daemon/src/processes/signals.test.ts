import assert from "node:assert/strict";
import { test } from "node:test";
import { signalNumber } from "./signals.ts";

test("signal numbers and names", () => {
  assert.equal(signalNumber(9), 9);
  assert.equal(signalNumber(64), 64);
  assert.equal(signalNumber(0), undefined);
  assert.equal(signalNumber(65), undefined);
  assert.equal(signalNumber("SIGTERM"), 15);
  assert.equal(signalNumber("term"), 15);
  assert.equal(signalNumber("Kill"), 9);
  assert.equal(signalNumber("SIGUSR1"), 10);
  assert.equal(signalNumber("SIGRTMIN"), 34);
  assert.equal(signalNumber("SIGRTMIN+2"), 36);
  assert.equal(signalNumber("RTMAX-1"), 63);
  assert.equal(signalNumber("SIGRTMAX+1"), undefined);
  assert.equal(signalNumber("SIGNOPE"), undefined);
  assert.equal(signalNumber("NOPE"), undefined);
});
