/**
 * The CLI's one usage table: `svc help`, every `svc <command> --help` and `svc <command> <subcommand> --help`
 * (or -h) are printed from it, and usage errors quote it.
 */

import { UsageError } from "./usage.ts";

interface CommandHelp {
  /** One line: what the command is for. */
  summary: string;
  /** Synopsis and option lines of a command without subcommands. */
  usage?: string[];
  /** Synopsis and option lines of each subcommand. */
  subcommands?: Record<string, string[]>;
  /** Lines printed after the usage of the command (and of its subcommands). */
  notes?: string[];
}

export const COMMANDS = {
  server: {
    summary: "run the server (every role by default) until SIGTERM or SIGINT",
    usage: [
      "svc server [--port N] [--host H] [--data-dir D] [--database-url URL] [--executor local|none] ...",
      "  --roles api,proxy,scheduler,executor,worker   the roles of this host (a subset needs --database-url)",
    ],
    notes: [
      "Every setting is a flag, an SVC_* environment variable or a config file field; the control API also",
      "serves MCP (Streamable HTTP) at /mcp. The settings:",
    ],
  },
  mcp: {
    summary: "the MCP server on stdin/stdout, for agent clients that start it as a command",
    usage: ["svc mcp"],
    notes: [
      "Tools: sandbox_create, sandbox_list, sandbox_run, run_code, sandbox_read_file, sandbox_write_file,",
      "sandbox_terminate, document_parse, document_extract. It acts with SERVICE_API_KEY on SVC_API_URL; the",
      "sandboxes it makes end when the client goes. Over HTTP: the server's /mcp with a Bearer API key.",
    ],
  },
  whoami: { summary: "the project and key this client uses", usage: ["svc whoami [--json]"] },
  keys: {
    summary: "API keys of the server's projects (admin)",
    subcommands: {
      create: ["svc keys create [--project P] [--name N]   create an API key (shown once)"],
      list: ["svc keys list [--project P]                 list API keys"],
      delete: ["svc keys delete <key-id>                    delete an API key"],
    },
  },
  projects: {
    summary: "projects of the server (admin)",
    subcommands: {
      create: ["svc projects create <name>   create a project"],
      list: ["svc projects list            list projects"],
    },
  },
  sandbox: {
    summary: "create, inspect, change and end sandboxes",
    subcommands: {
      create: [
        "svc sandbox create [--name N] [--image I] [--cpus C] [--memory MiB] [--disk MiB] [--timeout S] [--ports P,..] [--no-wait]",
      ],
      list: ["svc sandbox list [--all]                  running sandboxes (--all: every one)"],
      get: ["svc sandbox get <sb>                      one sandbox's record"],
      update: ["svc sandbox update <sb> [--name N] [--ports P,..] [--public true|false]"],
      delete: ["svc sandbox delete <sb>                   end a sandbox"],
      mount: ["svc sandbox mount <sb> <fs> <path> [--read-only] [--snapshot ID]   mount a named file system"],
      unmount: ["svc sandbox unmount <sb> <path>           detach a mount"],
      suspend: ["svc sandbox suspend <sb>                  freeze a named sandbox"],
      resume: ["svc sandbox resume <sb>                   thaw it"],
      snapshot: ["svc sandbox snapshot <sb> [--no-wait]     a filesystem snapshot"],
    },
  },
  snapshot: {
    summary: "sandbox snapshots",
    subcommands: {
      list: ["svc snapshot list"],
      get: ["svc snapshot get <id>"],
      delete: ["svc snapshot delete <id>"],
    },
  },
  template: {
    summary: "templates: images made from a snapshot, a directory tree or a Dockerfile",
    subcommands: {
      create: ["svc template create <name> (--snapshot ID | --dir D | --tar F)"],
      build: [
        "svc template build <name> [-f Dockerfile] [context] [--build-arg K=V]... [--no-internet] [--allow-out D]...",
        "  builds the Dockerfile (default <context>/Dockerfile) with the context directory (default .), streaming",
        "  the log; RUN steps run in a build sandbox under the egress policy given, each step is cached",
      ],
      list: ["svc template list"],
      get: ["svc template get <t>"],
      delete: ["svc template delete <t>"],
    },
  },
  registry: {
    summary: "the project's credentials for OCI registries (sandbox images by reference)",
    subcommands: {
      login: [
        "svc registry login <host[:port]> --username U --password-stdin   save credentials (encrypted)",
      ],
      list: ["svc registry list                  registry hosts and usernames (never passwords)"],
      logout: ["svc registry logout <host[:port]>  delete the credentials"],
    },
  },
  image: {
    summary: "images uploaded as docker save or OCI archives (then --image <name>)",
    subcommands: {
      upload: ["svc image upload <name> <archive.tar>   a `docker save` or OCI archive"],
      list: ["svc image list"],
      get: ["svc image get <name>"],
      delete: ["svc image delete <name>"],
    },
  },
  pool: {
    summary: "warm pools of sandboxes",
    subcommands: {
      create: [
        "svc pool create [--warm N] [--max N] [--image I] [--cpus C] [--memory MiB] [--disk MiB] [--timeout S]",
      ],
      list: ["svc pool list"],
      get: ["svc pool get <id>"],
      delete: ["svc pool delete <id>"],
      claim: ["svc pool claim <id>   take a warm sandbox"],
    },
  },
  fs: {
    summary: "named file systems (mounted by sandboxes)",
    subcommands: {
      create: ["svc fs create <name> [--description D]"],
      list: ["svc fs list"],
      delete: ["svc fs delete <fs>"],
      push: [
        "svc fs push <fs> <dir|archive.tar[.gz]> [--message M]   replace its tree (a message also takes a snapshot)",
      ],
      snapshot: ["svc fs snapshot <fs> [--message M]   a permanent snapshot of the live tree"],
      snapshots: ["svc fs snapshots <fs>"],
      ls: ["svc fs ls <fs>"],
      cat: ["svc fs cat <fs> <path>"],
      put: ["svc fs put <fs> <path> <local|->   write a file ('-' reads stdin)"],
    },
  },
  exec: {
    summary: "run a command in a sandbox; exits with its code",
    usage: ["svc exec <sb> [--user U] [--cwd D] [--env K=V]... [--timeout S] -- cmd args..."],
  },
  cp: {
    summary: "copy a file out of or into a sandbox",
    usage: ["svc cp <sb>:<path> <local|->", "svc cp <local> <sb>:<path>"],
  },
  shell: {
    summary: "interactive terminal in a sandbox (default bash); exits with its code",
    usage: ["svc shell <sb> [--command C] [--cwd D] [--env K=V]"],
  },
  tunnel: {
    summary: "forward 127.0.0.1:N (default <port>) to <port> in the sandbox",
    usage: ["svc tunnel <sb> <port> [--local-port N]"],
  },
  ssh: {
    summary: "OpenSSH into a sandbox through the server's SSH gateway (port 2222 or SVC_SSH_PORT)",
    usage: ["svc ssh <sb> [--host H] [--port N] [-o opt]... [-L spec]... [-- command...]"],
    notes: ["The API key is the password."],
  },
  parse: {
    summary: "parse a document and print it as markdown (or the result as JSON)",
    usage: [
      "svc parse <file|url|-> [--read] [--pages 1-3,5] [--json|--markdown] [--dataset NAME] [--mime TYPE]",
      "  [--chunking none|page|section|fragment] [--tables markdown|html] [--timeout S]",
      "  [--extract NAME=SCHEMA.json]... [--provider NAME] [--partition none|page|section|fragment] [--citations]",
      "  [--classify NAME=DESCRIPTION]... [--summarize-tables] [--summarize-figures] [--charts] [--page-images]",
    ],
    notes: ["'-' reads stdin; exits 1 with the reason when the job fails."],
  },
  files: {
    summary: "uploaded documents",
    subcommands: {
      upload: ["svc files upload <path> [--label K=V]... [--mime T]"],
      list: ["svc files list [--limit N] [--cursor C] [--all]"],
      get: ["svc files get <id>"],
      delete: ["svc files delete <id>"],
    },
  },
  datasets: {
    summary: "named parse settings and the results parsed with them",
    subcommands: {
      create: [
        "svc datasets create <name> [--description D] [--chunking S] [--tables M] [--settings FILE.json]",
      ],
      list: ["svc datasets list [--limit N] [--cursor C] [--all]"],
      get: ["svc datasets get <name-or-id> [--analytics]"],
      update: ["svc datasets update <name-or-id> [--name N] [--description D] [--chunking S] [--tables M]"],
      delete: ["svc datasets delete <name-or-id>"],
      data: ["svc datasets data <name-or-id> [--status S] [--limit N] [--all]   the dataset's parse results"],
    },
  },
} satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMANDS;

const FOOTER = `Clients read SERVICE_API_KEY and SVC_API_URL (default http://localhost:8900), and fall back to the local
server's key in SVC_DATA_DIR (default ./.svc). Admin commands (keys, projects) use SVC_ADMIN_TOKEN or the
local server's admin-token file. Add --json for machine-readable output; --help (or -h) after any command or
subcommand prints its usage.`;

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function linesOf(help: CommandHelp): string[] {
  return help.usage ?? Object.values(help.subcommands ?? {}).flat();
}

/** `svc help`: every command's usage. */
export function overview(): string {
  const blocks = Object.entries(COMMANDS).map(
    ([name, help]: [string, CommandHelp]) =>
      `  ${name}: ${help.summary}\n${linesOf(help)
        .map((l) => `    ${l}`)
        .join("\n")}`,
  );
  return `svc: sandboxes and document parsing, self-hosted\n\nUsage: svc <command> [options]\n\nCommands:\n${blocks.join("\n")}\n\n${FOOTER}`;
}

/** The usage of a command, or of one of its subcommands: its lines, then its notes. */
export function usageOf(command: CommandName, subcommand?: string): string {
  const help: CommandHelp = COMMANDS[command];
  const sub = subcommand !== undefined ? help.subcommands?.[subcommand] : undefined;
  const lines = sub ?? linesOf(help);
  const notes = sub ? [] : (help.notes ?? []);
  return [
    `usage: ${lines[0]}`,
    ...lines.slice(1).map((l) => `       ${l}`),
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
}

/**
 * The help a command line asks for with --help or -h (before any `--`, after which the arguments are another
 * program's), or undefined when it asks for none.
 */
export function helpRequest(argv: string[]): { command?: CommandName; subcommand?: string } | undefined {
  const dash = argv.indexOf("--");
  const own = dash === -1 ? argv : argv.slice(0, dash);
  if (!own.some((arg) => arg === "--help" || arg === "-h")) return undefined;
  const [command, subcommand] = own;
  if (!command || !isCommand(command)) return {};
  const subs: Record<string, string[]> | undefined = (COMMANDS[command] as CommandHelp).subcommands;
  return { command, subcommand: subcommand && subs?.[subcommand] ? subcommand : undefined };
}

/** `svc server --help` also lists every setting, from the server's own configuration table. */
async function serverSettings(): Promise<string> {
  const { configOptions } = await import("@svc/server");
  return Object.values(configOptions)
    .map((o: { flag?: string; env?: string; default?: unknown; description: string }) => {
      const name = [o.flag, o.env].filter(Boolean).join(", ");
      return `  ${name}\n      ${o.description} (default ${JSON.stringify(o.default)})`;
    })
    .join("\n");
}

/**
 * What a command line that asks for help (helpRequest) prints: the usage of its command or subcommand, or the
 * overview for a bare `svc --help`; undefined when it asks for none. An unknown command stays a usage error.
 */
export async function helpText(argv: string[]): Promise<string | undefined> {
  const help = helpRequest(argv);
  if (!help) return undefined;
  if (!help.command) {
    if (argv[0] !== "--help" && argv[0] !== "-h") throw new UsageError(`unknown command ${argv[0]}`);
    return overview();
  }
  const usage = usageOf(help.command, help.subcommand);
  return help.command === "server" ? `${usage}\n${await serverSettings()}` : usage;
}

export { isCommand };
