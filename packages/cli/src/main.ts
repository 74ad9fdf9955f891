#!/usr/bin/env node
import { type CommandName, helpText, isCommand, overview, usageOf } from "./help.ts";
import { UsageError } from "./usage.ts";

type Command = (args: string[]) => Promise<number | undefined>;

/** Each command's module, loaded when it runs (a command does not pay for the others' imports). */
const commands: Record<CommandName, () => Promise<Command>> = {
  server: async () => (await import("./commands/server.ts")).serverCommand,
  mcp: async () => (await import("./commands/mcp.ts")).mcpCommand,
  keys: async () => (await import("./commands/keys.ts")).keysCommand,
  projects: async () => (await import("./commands/projects.ts")).projectsCommand,
  whoami: async () => (await import("./commands/whoami.ts")).whoamiCommand,
  sandbox: async () => (await import("./commands/sandbox.ts")).sandboxCommand,
  exec: async () => (await import("./commands/exec.ts")).execCommand,
  cp: async () => (await import("./commands/cp.ts")).cpCommand,
  shell: async () => (await import("./commands/shell.ts")).shellCommand,
  tunnel: async () => (await import("./commands/tunnel.ts")).tunnelCommand,
  ssh: async () => (await import("./commands/ssh.ts")).sshCommand,
  parse: async () => (await import("./commands/parse.ts")).parseCommand,
  files: async () => (await import("./commands/files.ts")).filesCommand,
  fs: async () => (await import("./commands/fs.ts")).fsCommand,
  snapshot: async () => (await import("./commands/snapshot.ts")).snapshotCommand,
  template: async () => (await import("./commands/template.ts")).templateCommand,
  registry: async () => (await import("./commands/registry.ts")).registryCommand,
  image: async () => (await import("./commands/image.ts")).imageCommand,
  pool: async () => (await import("./commands/pool.ts")).poolCommand,
  datasets: async () => (await import("./commands/datasets.ts")).datasetsCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help") {
    const topic = rest[0];
    if (topic && isCommand(topic)) console.log(usageOf(topic, rest[1]));
    else console.log(overview());
    return name ? 0 : 2;
  }
  const help = await helpText(argv);
  if (help !== undefined) {
    console.log(help);
    return 0;
  }
  if (!isCommand(name)) throw new UsageError(`unknown command ${name}`);
  return (await (await commands[name]())(rest)) ?? 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`svc: ${error.message}\nRun 'svc help' for usage.`);
    process.exitCode = 2;
  } else if (error instanceof (await import("@svc/sdk")).SvcError) {
    console.error(`svc: ${error.message} (${error.code})`);
    process.exitCode = 1;
  } else {
    console.error(`svc: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
