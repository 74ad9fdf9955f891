#!/usr/bin/env node
import { SvcError } from "@svc/sdk";
import { cpCommand } from "./commands/cp.ts";
import { datasetsCommand } from "./commands/datasets.ts";
import { execCommand } from "./commands/exec.ts";
import { filesCommand } from "./commands/files.ts";
import { fsCommand } from "./commands/fs.ts";
import { keysCommand } from "./commands/keys.ts";
import { parseCommand } from "./commands/parse.ts";
import { poolCommand } from "./commands/pool.ts";
import { projectsCommand } from "./commands/projects.ts";
import { sandboxCommand } from "./commands/sandbox.ts";
import { serverCommand } from "./commands/server.ts";
import { shellCommand } from "./commands/shell.ts";
import { snapshotCommand } from "./commands/snapshot.ts";
import { sshCommand } from "./commands/ssh.ts";
import { templateCommand } from "./commands/template.ts";
import { tunnelCommand } from "./commands/tunnel.ts";
import { whoamiCommand } from "./commands/whoami.ts";
import { UsageError } from "./usage.ts";

const commands: Record<string, (args: string[]) => Promise<number | undefined>> = {
  server: serverCommand,
  keys: keysCommand,
  projects: projectsCommand,
  whoami: whoamiCommand,
  sandbox: sandboxCommand,
  exec: execCommand,
  cp: cpCommand,
  shell: shellCommand,
  tunnel: tunnelCommand,
  ssh: sshCommand,
  parse: parseCommand,
  files: filesCommand,
  fs: fsCommand,
  snapshot: snapshotCommand,
  template: templateCommand,
  pool: poolCommand,
  datasets: datasetsCommand,
};

const help = `svc: sandboxes and document parsing, self-hosted

Usage: svc <command> [options]

Commands:
  server [--port N] [--host H] [--data-dir D] [--database-url URL] ...   run the server
         [--roles api,proxy,scheduler,executor,worker]   the roles of this host (a subset needs --database-url)
  whoami                                       the project and key this client uses
  keys create [--project P] [--name N]         create an API key (shown once)
  keys list [--project P]                      list API keys
  keys delete <key-id>                         delete an API key
  projects create <name> | projects list       manage projects
  sandbox create [--name N] [--image I] [--cpus C] [--memory MiB] [--disk MiB] [--timeout S] [--ports P,..] [--no-wait]
  sandbox list [--all] | get <sb> | update <sb> [--name N] [--ports P,..] [--public true|false] | delete <sb>
  sandbox mount <sb> <fs> <path> [--read-only] [--snapshot ID] | unmount <sb> <path>   file-system mounts
  sandbox suspend <sb> | resume <sb> | snapshot <sb> [--no-wait]   freeze and thaw; a filesystem snapshot
  snapshot list | get <id> | delete <id>              sandbox snapshots
  template create <name> (--snapshot ID | --dir D | --tar F) | list | get <t> | delete <t>   templates
  pool create [--warm N] [--max N] [--image I] [--cpus C] [--memory MiB] [--disk MiB] [--timeout S]
  pool list | get <id> | delete <id> | claim <id>     warm pools
  fs create <name> [--description D] | list | delete <fs>     named file systems (mounted by sandboxes)
  fs push <fs> <dir|archive.tar[.gz]> [--message M]    replace its tree (a message also takes a snapshot)
  fs snapshot <fs> [--message M] | snapshots <fs> | ls <fs> | cat <fs> <path> | put <fs> <path> <local|->
  exec <sb> [--user U] [--cwd D] [--env K=V] [--timeout S] -- cmd args...   run a command; exits with its code
  cp <sb>:<path> <local|->  |  cp <local> <sb>:<path>                     copy a file out of or into a sandbox
  shell <sb> [--command C] [--cwd D] [--env K=V]   interactive terminal (default bash); exits with its code
  tunnel <sb> <port> [--local-port N]              forward 127.0.0.1:N (default <port>) to <port> in the sandbox
  ssh <sb> [--host H] [--port N] [-o opt]... [-L spec]... [-- command...]  OpenSSH into a sandbox through the
                                               server's SSH gateway (port 2222 or SVC_SSH_PORT), API key as password
  parse <file|url|-> [--read] [--pages 1-3,5] [--json|--markdown] [--dataset NAME] [--mime TYPE]
        [--chunking none|page|section|fragment] [--tables markdown|html] [--timeout S]
                                               parse a document and print it as markdown (or the result as JSON);
                                               '-' reads stdin; exits 1 with the reason when the job fails
  files upload <path> [--label K=V] [--mime T] | list [--limit N] [--cursor C] [--all] | get <id> | delete <id>
  datasets create <name> [--description D] [--chunking S] [--tables M] | list [--all] | get <name-or-id> [--analytics]
  datasets update <name-or-id> [--name N] [--description D] [--chunking S] [--tables M] | delete <name-or-id>
  datasets data <name-or-id> [--status S] [--limit N] [--all]   the dataset's parse results

Clients read SERVICE_API_KEY and SVC_API_URL (default http://localhost:8900), and fall back to the local
server's key in SVC_DATA_DIR (default ./.svc). Admin commands (keys, projects) use SVC_ADMIN_TOKEN or the
local server's admin-token file. Add --json for machine-readable output.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    console.log(help);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command ${name}`);
  return (await command(rest)) ?? 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`svc: ${error.message}\nRun 'svc help' for usage.`);
    process.exitCode = 2;
  } else if (error instanceof SvcError) {
    console.error(`svc: ${error.message} (${error.code})`);
    process.exitCode = 1;
  } else {
    console.error(`svc: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
