import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { numberOption, UsageError } from "../usage.ts";

/**
 * `svc exec <sandbox> [--user U] [--cwd D] [--env K=V]... [--timeout S] -- command args...`: runs a command,
 * streams its output to this terminal's stdout and stderr, and exits with its exit code (128 + signal when
 * killed by one).
 */
export async function execCommand(args: string[]): Promise<number | undefined> {
  const dash = args.indexOf("--");
  if (dash < 1 || dash === args.length - 1) throw new UsageError(usageOf("exec"));
  const [target, ...options] = args.slice(0, dash);
  const [command, ...commandArgs] = args.slice(dash + 1);
  const env: Record<string, string> = {};
  let user: string | undefined;
  let workingDir: string | undefined;
  let timeout: number | undefined;
  for (let i = 0; i < options.length; i++) {
    const value = options[i + 1];
    switch (options[i]) {
      case "--user":
        user = value;
        break;
      case "--cwd":
        workingDir = value;
        break;
      case "--timeout":
        timeout = numberOption(value, "timeout");
        break;
      case "--env": {
        const eq = value?.indexOf("=") ?? -1;
        if (eq < 1) throw new UsageError("--env takes NAME=VALUE");
        env[value.slice(0, eq)] = value.slice(eq + 1);
        break;
      }
      default:
        throw new UsageError(`unknown option ${options[i]}`);
    }
    if (value === undefined) throw new UsageError(`${options[i]} needs a value`);
    i++;
  }
  const sandbox = await new Client().sandboxes.get(target);
  const result = await sandbox.run(command, {
    args: commandArgs,
    env,
    user,
    workingDir,
    timeout,
    onStdout: (line) => process.stdout.write(`${line}\n`),
    onStderr: (line) => process.stderr.write(`${line}\n`),
  });
  if (result.oomKilled) process.stderr.write("svc: the process was killed by the out-of-memory killer\n");
  return result.exitCode ?? 128 + (result.signal ?? 0);
}
