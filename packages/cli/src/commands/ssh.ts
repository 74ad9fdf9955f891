import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import path from "node:path";
import { resolveApiKey, resolveBaseUrl } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { UsageError } from "../usage.ts";

/** The SSH gateway's default port (the server's `sshPort`). */
const DEFAULT_SSH_PORT = 2222;

const USAGE = usageOf("ssh");

/**
 * `svc ssh <sandbox> [--host H] [--port N] [-o opt]... [-L spec]... [-- command...]`: runs the OpenSSH client
 * against the server's SSH gateway (`<sandbox>@<host>`, port 2222 or SVC_SSH_PORT; host SVC_SSH_HOST or the API
 * URL's), with this client's API key given as the password through SSH_ASKPASS. Exits with ssh's exit code.
 */
export async function sshCommand(args: string[]): Promise<number | undefined> {
  const dash = args.indexOf("--");
  const [target, ...options] = dash === -1 ? args : args.slice(0, dash);
  const command = dash === -1 ? [] : args.slice(dash + 1);
  if (!target || target.startsWith("-")) throw new UsageError(USAGE);
  let host = process.env.SVC_SSH_HOST || new URL(resolveBaseUrl()).hostname.replace(/^\[|\]$/g, "");
  let port = process.env.SVC_SSH_PORT || String(DEFAULT_SSH_PORT);
  const sshOptions: string[] = [];
  for (let i = 0; i < options.length; i++) {
    const value = options[i + 1];
    if (value === undefined) throw new UsageError(`${options[i]} needs a value`);
    switch (options[i]) {
      case "--host":
        host = value;
        break;
      case "--port":
        port = value;
        break;
      case "-o":
      case "-L":
        sshOptions.push(options[i], value);
        break;
      default:
        throw new UsageError(`unknown option ${options[i]}\n${USAGE}`);
    }
    i++;
  }
  if (!/^\d{1,5}$/.test(port)) throw new UsageError("--port needs a port number");
  const apiKey = resolveApiKey();
  if (!apiKey)
    throw new UsageError("no API key: set SERVICE_API_KEY or run next to a local server's data directory");

  // ssh reads the password from an askpass program only: a private script that prints the key from the env.
  const dir = await mkdtemp(path.join(tmpdir(), "svc-ssh-"));
  try {
    const askpass = path.join(dir, "askpass");
    await writeFile(askpass, "#!/bin/sh\nprintf '%s\\n' \"$SVC_SSH_API_KEY\"\n");
    await chmod(askpass, 0o700);
    const child = spawn(
      "ssh",
      [
        ...["-p", port, "-o", "PreferredAuthentications=keyboard-interactive,password"],
        ...["-o", "PubkeyAuthentication=no", "-o", "NumberOfPasswordPrompts=1"],
        ...sshOptions,
        `${target}@${host}`,
        ...command,
      ],
      {
        stdio: "inherit",
        env: { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: "force", SVC_SSH_API_KEY: apiKey },
      },
    );
    return await new Promise<number>((resolve, reject) => {
      child.once("error", (error) =>
        reject(
          (error as NodeJS.ErrnoException).code === "ENOENT"
            ? new Error("ssh is not installed (the OpenSSH client)")
            : error,
        ),
      );
      child.once("close", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
