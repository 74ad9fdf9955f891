/**
 * # host-firewall
 *
 * The host's protection against its sandboxes, one nftables table (`inet svc_host`) replaced atomically with
 * one `nft -f` (the delete-table idiom: a file with an error changes nothing). Installed at every server start;
 * never removed on stop, since sandboxes may outlive the server process.
 *
 * - input, from any `svch-*`: only replies to connections the host opened (the host talks to the daemons), and
 *   the resolver port on host-side addresses when a resolver is configured. A service bound to 0.0.0.0 or `::`
 *   on the host is out of reach, whatever host address a sandbox tries.
 * - forward: no sandbox-to-sandbox traffic, nothing to link-local 169.254.0.0/16 (cloud metadata), no IPv6; and
 *   nothing from outside opens a connection into a sandbox.
 * - postrouting: masquerade of the pool's addresses on the uplink(s).
 *
 * Each rule rejects (ICMP admin-prohibited) rather than drops, so a sandbox sees an error at once instead of a
 * time-out. The table only adds restrictions for traffic of `svch-*` interfaces and the pool; the host's own
 * traffic is untouched. Forwarding is turned on per interface (the uplinks here, each `svch-*` in network.ts),
 * never with the global `ip_forward` switch.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { DEFAULT_POOL, formatCidr, HOST_IF_PREFIX, NetworkError, parseIpv4Cidr, runTool } from "./network.ts";

export const DEFAULT_HOST_TABLE = "svc_host";

export interface HostFirewallOptions {
  /** Table name (family inet); default `svc_host`. Tests use their own. */
  table?: string;
  /** The sandbox address pool; default that of network.ts. */
  pool?: string;
  /**
   * Interfaces toward the internet: masquerade and forwarding apply there. Empty: masquerade on every
   * interface that is not a sandbox's (forwarding is then left to the caller). Default: the default route's.
   */
  uplinks?: string[];
  /** Port of a resolver the host runs for sandboxes on their host-side address (TCP and UDP); none when absent. */
  resolverPort?: number;
}

const NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,14}$/;
const TABLE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function checkedPool(text: string): string {
  const cidr = parseIpv4Cidr(text);
  if (!cidr) throw new NetworkError(`not an IPv4 pool: ${text}`);
  return formatCidr(cidr);
}

/** The nft file that installs (or replaces) the host table. Pure. */
export function renderHostFirewall(options: HostFirewallOptions & { uplinks: string[] }): string {
  const table = options.table ?? DEFAULT_HOST_TABLE;
  if (!TABLE_PATTERN.test(table)) throw new NetworkError(`not a valid nft table name: ${table}`);
  for (const uplink of options.uplinks) {
    if (!NAME_PATTERN.test(uplink)) throw new NetworkError(`not a valid interface name: ${uplink}`);
  }
  const pool = checkedPool(options.pool ?? DEFAULT_POOL);
  const port = options.resolverPort;
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    throw new NetworkError(`not a valid resolver port: ${port}`);
  }
  const sandboxes = `"${HOST_IF_PREFIX}*"`;
  const reject = "reject with icmpx type admin-prohibited";
  const uplinkMatch =
    options.uplinks.length > 0
      ? `oifname { ${options.uplinks.map((name) => `"${name}"`).join(", ")} }`
      : `oifname != ${sandboxes}`;
  const lines = [
    `table inet ${table} {}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    "  chain input {",
    "    type filter hook input priority filter; policy accept;",
    `    iifname ${sandboxes} jump from_sandbox`,
    "  }",
    "  chain from_sandbox {",
    "    ct state established,related accept",
    ...(port === undefined ? [] : [`    ip daddr ${pool} meta l4proto { tcp, udp } th dport ${port} accept`]),
    `    ${reject}`,
    "  }",
    "  chain forward {",
    "    type filter hook forward priority filter; policy accept;",
    `    iifname ${sandboxes} jump forward_from_sandbox`,
    `    oifname ${sandboxes} ct state established,related accept`,
    `    oifname ${sandboxes} ${reject}`,
    "  }",
    "  chain forward_from_sandbox {",
    `    oifname ${sandboxes} ${reject}`,
    "    meta nfproto ipv6 reject with icmpx type admin-prohibited",
    `    ip daddr 169.254.0.0/16 ${reject}`,
    `    ip daddr ${pool} ${reject}`,
    `    fib daddr type { local, broadcast, multicast } ${reject}`,
    "  }",
    "  chain postrouting {",
    "    type nat hook postrouting priority srcnat; policy accept;",
    `    ip saddr ${pool} ${uplinkMatch} masquerade`,
    "  }",
    "}",
  ];
  return `${lines.join("\n")}\n`;
}

/** Interfaces of the host's IPv4 default routes. */
export async function defaultUplinks(): Promise<string[]> {
  const routes = JSON.parse(await runTool("ip", ["-j", "-4", "route", "show", "default"])) as {
    dev?: string;
  }[];
  return [...new Set(routes.map((route) => route.dev).filter((dev): dev is string => Boolean(dev)))];
}

/**
 * Installs or replaces the host table and turns on IPv4 forwarding on each uplink (replies to sandboxes come in
 * there). Idempotent; call it at every server start.
 */
export async function installHostFirewall(options: HostFirewallOptions = {}): Promise<{ uplinks: string[] }> {
  const uplinks = options.uplinks ?? (await defaultUplinks());
  const file = renderHostFirewall({ ...options, uplinks });
  await runTool("nft", ["-f", "-"], file);
  for (const uplink of uplinks) {
    const path = `/proc/sys/net/ipv4/conf/${uplink}/forwarding`;
    if (existsSync(path)) await writeFile(path, "1");
  }
  return { uplinks };
}

/** Whether the host table is present. */
export async function hostFirewallInstalled(table = DEFAULT_HOST_TABLE): Promise<boolean> {
  const tables = await runTool("nft", ["list", "tables", "inet"]);
  return tables.split("\n").some((line) => line.trim() === `table inet ${table}`);
}

/** Deletes the host table (for uninstalling and tests; a server that stops leaves it). Idempotent. */
export async function removeHostFirewall(table = DEFAULT_HOST_TABLE): Promise<void> {
  if (!TABLE_PATTERN.test(table)) throw new NetworkError(`not a valid nft table name: ${table}`);
  await runTool("nft", ["-f", "-"], `table inet ${table} {}\ndelete table inet ${table}\n`);
}
