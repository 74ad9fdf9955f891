import assert from "node:assert/strict";
import { test } from "node:test";
import { COMMANDS, helpText } from "./help.ts";
import { runSvc, type SvcRun } from "./svc.testing.ts";

/** `svc` with no server to reach: help must not need one. */
const svc = (args: string[]): Promise<SvcRun> =>
  runSvc(args, { SVC_API_URL: "http://127.0.0.1:9", SVC_DATA_DIR: "/nonexistent" });

/** Runs the command lines a few at a time (each is a Node start on a loaded machine). */
async function runAll(lines: string[][]): Promise<Map<string, SvcRun>> {
  const runs = new Map<string, SvcRun>();
  const queue = [...lines];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let line = queue.shift(); line; line = queue.shift()) runs.set(line.join(" "), await svc(line));
    }),
  );
  return runs;
}

/** Every command and subcommand asked for help with --help and -h, and what its usage starts with. */
function helpLines(): [string[], RegExp][] {
  const lines: [string[], RegExp][] = [];
  for (const [command, help] of Object.entries(COMMANDS)) {
    for (const flag of ["--help", "-h"])
      lines.push([[command, flag], new RegExp(`^usage: svc ${command}\\b`)]);
    for (const sub of Object.keys((help as { subcommands?: object }).subcommands ?? {})) {
      lines.push([[command, sub, "--help"], new RegExp(`^usage: svc ${command} ${sub}\\b`)]);
      lines.push([[command, sub, "-h"], new RegExp(`^usage: svc ${command} ${sub}\\b`)]);
    }
  }
  // Help wins over the other arguments, even ones that would be usage errors.
  lines.push([["server", "--port", "notanumber", "--help"], /^usage: svc server\b/]);
  lines.push([["sandbox", "get", "some-sandbox", "--bogus", "-h"], /^usage: svc sandbox get\b/]);
  lines.push([["--help"], /^svc: sandboxes and document parsing/]);
  return lines;
}

test("every command and subcommand answers --help and -h with its own usage", async () => {
  for (const [line, expected] of helpLines()) {
    assert.match((await helpText(line)) ?? "", expected, `svc ${line.join(" ")}`);
  }
  assert.equal(await helpText(["sandbox", "get", "sb"]), undefined, "no help asked");
  assert.match(
    (await helpText(["server", "-h"])) ?? "",
    /--data-dir, SVC_DATA_DIR/,
    "server help lists its settings",
  );
  // A subcommand's help is its own line, not the whole command's.
  assert.doesNotMatch((await helpText(["sandbox", "get", "-h"])) ?? "", /sandbox create/);
});

test("svc prints that help, exit 0, for one command line of each command and the lines help wins over", {
  timeout: 600_000,
}, async () => {
  // A process for each command's --help (a command's module loads on its own), and for each line help wins over;
  // helpText, which main prints, answers for the rest above.
  const spawned = helpLines().filter(([line]) =>
    line.length === 2 ? line[1] === "--help" : line.length !== 3,
  );
  spawned.push(
    [["sandbox", "-h"], /^usage: svc sandbox\b/],
    [["fs", "put", "--help"], /^usage: svc fs put\b/],
  );
  spawned.push([["help", "fs", "put"], /^usage: svc fs put\b/]);
  const runs = await runAll(spawned.map(([line]) => line));
  for (const [line, expected] of spawned) {
    const run = runs.get(line.join(" "));
    assert.ok(run);
    assert.equal(run.code, 0, `svc ${line.join(" ")}: ${run.stderr}`);
    assert.match(run.stdout, expected, `svc ${line.join(" ")}`);
    assert.equal(run.stderr, "", `svc ${line.join(" ")}`);
    if (line[0] !== "help") assert.equal(run.stdout, `${await helpText(line)}\n`);
  }
  const server = runs.get("server --port notanumber --help");
  assert.match(server?.stdout ?? "", /--data-dir, SVC_DATA_DIR/, "server help lists its settings");
});

test("--help after `--` belongs to the command run in the sandbox; unknown commands stay usage errors", {
  timeout: 120_000,
}, async () => {
  const exec = await svc(["exec", "sb", "--", "ls", "--help"]);
  assert.equal(exec.code, 1, "exec tried to reach the server");
  assert.doesNotMatch(exec.stdout, /usage:/);
  const unknown = await svc(["no-such-command", "--help"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command no-such-command/);
});
