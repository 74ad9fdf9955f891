import assert from "node:assert/strict";
import { test } from "node:test";
import { usageOf } from "./help.ts";
import { integerOption, numberOption, UsageError } from "./usage.ts";

test("numbers are read one way: absent is undefined, a bad one is a UsageError naming the option and the range", () => {
  assert.equal(numberOption(undefined, "cpus"), undefined);
  assert.equal(numberOption("0.5", "cpus"), 0.5);
  assert.equal(numberOption("8080", "<port>", { integer: true, min: 1, max: 65535 }), 8080);
  assert.equal(integerOption("3", "limit"), 3);
  const refusals: [() => unknown, RegExp][] = [
    [() => numberOption("two", "cpus"), /^--cpus needs a number$/],
    [() => numberOption("", "timeout"), /^--timeout needs a number$/],
    [() => numberOption("Infinity", "timeout"), /^--timeout needs a number$/],
    [() => integerOption("0", "limit"), /^--limit needs a positive integer$/],
    [() => integerOption("1.5", "limit"), /^--limit needs a positive integer$/],
    [() => numberOption("-1", "warm", { integer: true, min: 0 }), /^--warm needs an integer of at least 0$/],
    [
      () => numberOption("70000", "<port>", { integer: true, min: 1, max: 65535 }),
      /^<port> needs an integer from 1 to 65535$/,
    ],
  ];
  for (const [read, message] of refusals) {
    assert.throws(read, (error) => error instanceof UsageError && message.test(error.message));
  }
});

test("usage comes from the one usage table, a subcommand's alone", () => {
  assert.match(usageOf("snapshot", "get"), /^usage: svc snapshot get <id>$/);
  const all = usageOf("snapshot");
  assert.match(all, /^usage: svc snapshot list\n {7}svc snapshot get <id>\n {7}svc snapshot delete <id>$/);
});
