import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, UsageError } from "../usage.ts";

/** Input waiting for the network above this pauses reading this terminal's stdin. */
const STDIN_HIGH_WATER = 1024 * 1024;

/**
 * `svc shell <sandbox> [--command C] [--cwd D] [--env K=V]...`: an interactive terminal in the sandbox over the
 * PTY WebSocket. A TTY stdin is put in raw mode, window size changes are sent as resizes, and the exit code is the
 * remote program's.
 */
export async function shellCommand(args: string[]): Promise<number | undefined> {
  const { values, positionals } = parse(
    args,
    {
      command: { type: "string" },
      cwd: { type: "string" },
      env: { type: "string", multiple: true },
    },
    1,
  );
  const [target] = positionals;
  if (!target) throw new UsageError(usageOf("shell"));
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new UsageError("--env takes NAME=VALUE");
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const tty = process.stdin.isTTY === true;
  if (process.env.TERM) env.TERM ??= process.env.TERM;
  const sandbox = await new Client().sandboxes.get(target);
  const term = await sandbox.pty({
    command: values.command ?? "bash",
    env,
    ...(values.cwd !== undefined ? { workingDir: values.cwd } : {}),
    ...(process.stdout.isTTY ? { cols: process.stdout.columns, rows: process.stdout.rows } : {}),
  });
  term.onData((data) => {
    if (!process.stdout.write(data)) {
      term.pause();
      process.stdout.once("drain", () => term.resume());
    }
  });
  const onResize = () => term.resize(process.stdout.columns, process.stdout.rows);
  if (process.stdout.isTTY) process.on("SIGWINCH", onResize);
  if (tty) process.stdin.setRawMode(true);
  const onInput = (chunk: Buffer) => {
    term.write(chunk);
    if (term.bufferedAmount > STDIN_HIGH_WATER) {
      process.stdin.pause();
      const wait = setInterval(() => {
        if (term.bufferedAmount < STDIN_HIGH_WATER / 4) {
          clearInterval(wait);
          process.stdin.resume();
        }
      }, 5);
    }
  };
  process.stdin.on("data", onInput);
  process.stdin.resume();
  try {
    return await term.exited;
  } finally {
    process.stdin.off("data", onInput);
    process.off("SIGWINCH", onResize);
    if (tty) process.stdin.setRawMode(false);
    process.stdin.pause();
    process.stdin.unref?.();
  }
}
