/**
 * # network
 *
 * The network of a sandbox (recipe section 4): a network namespace `svc-<id>` joined to the host by a veth pair,
 * host side `svch-<index>`, sandbox side `eth0`, on a /30 of a private pool (default 10.213.0.0/16) that exists
 * only between the host and its own namespaces. Index `n` takes the n-th /30 of the pool: the host side is its
 * first address, the sandbox its second, and the sandbox's default route goes through the host side.
 *
 * The host routes for the sandbox (per-interface `forwarding=1` on `svch-<n>`; IPv6 off on it), masquerades its
 * traffic on the uplink and keeps it away from the host and other sandboxes: see host-firewall.ts. The egress
 * policy lives inside the namespace: see egress-policy.ts.
 *
 * Indexes are chosen by the caller with `allocateIndex` from the indexes its store knows plus the interfaces
 * that still exist (`listNetworks`), since a deleted namespace's veth can linger for seconds. All `ip` work is
 * batched: two `ip -b` runs to create, one to destroy.
 */

import { existsSync } from "node:fs";
import { readdir, writeFile } from "node:fs/promises";
import { runTool as runHostTool } from "./host-command.ts";

export const DEFAULT_POOL = "10.213.0.0/16";
export const NETNS_PREFIX = "svc-";
export const HOST_IF_PREFIX = "svch-";
/** The sandbox-side interface name inside its namespace. */
export const SANDBOX_IF = "eth0";
const NETNS_DIR = "/run/netns";
const SUBNET_BITS = 30;

export interface SandboxNetwork {
  /** Name of the network namespace, under /run/netns. */
  netns: string;
  /** Host side of the veth pair. */
  hostIf: string;
  /** Address of the host side: the sandbox's gateway, and where a host resolver listens. */
  hostIp: string;
  sandboxIp: string;
  /** Prefix length of the link between them. */
  prefixLength: number;
  index: number;
}

export interface NetworkOptions {
  /** IPv4 pool in CIDR form, split into /30s; default DEFAULT_POOL. */
  pool?: string;
}

export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NetworkError";
  }
}

/** A failed run of a host tool, with its stderr. */
export class ToolError extends Error {
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(command: string, exitCode: number | null, stderr: string) {
    super(`${command}: exit ${exitCode}${stderr.trim() ? `: ${stderr.trim().slice(-2000)}` : ""}`);
    this.name = "ToolError";
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/**
 * Runs a host tool with `input` on its stdin (through the tool runner, host-command.ts); resolves with stdout,
 * rejects with a ToolError unless it exits 0.
 */
export async function runTool(file: string, args: string[], input?: string): Promise<string> {
  const command = `${file} ${args.join(" ")}`;
  let answer: Awaited<ReturnType<typeof runHostTool>>;
  try {
    answer = await runHostTool({ file, args, input });
  } catch (error) {
    throw new ToolError(command, null, (error as Error).message);
  }
  if (answer.error) throw new ToolError(command, null, answer.error);
  if (answer.code !== 0) throw new ToolError(command, answer.code, answer.stderr);
  return answer.stdout;
}

// ---- IPv4 helpers, shared with the firewall and egress policy ----

/** Parses a dotted-quad IPv4 address into a 32-bit unsigned number; null when it is not one. */
export function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    // No leading zeros: some parsers read them as octal, so `010.0.0.1` is ambiguous.
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

export interface Ipv4Cidr {
  /** Network address (host bits cleared). */
  network: number;
  prefixLength: number;
}

/** Parses `a.b.c.d/len` (or a bare address, as /32); null when it is not valid. Host bits are cleared. */
export function parseIpv4Cidr(text: string): Ipv4Cidr | null {
  const [address, length, extra] = text.split("/");
  if (extra !== undefined) return null;
  const value = parseIpv4(address);
  if (value === null) return null;
  let prefixLength = 32;
  if (length !== undefined) {
    if (!/^(?:0|[1-9]\d?)$/.test(length)) return null;
    prefixLength = Number(length);
    if (prefixLength > 32) return null;
  }
  const size = 2 ** (32 - prefixLength);
  return { network: value - (value % size), prefixLength };
}

export function formatCidr(cidr: Ipv4Cidr): string {
  return `${formatIpv4(cidr.network)}/${cidr.prefixLength}`;
}

function pool(options: NetworkOptions): Ipv4Cidr {
  const text = options.pool ?? DEFAULT_POOL;
  const cidr = parseIpv4Cidr(text);
  if (!cidr || cidr.prefixLength > SUBNET_BITS) throw new NetworkError(`not a usable IPv4 pool: ${text}`);
  return cidr;
}

/** How many sandbox networks the pool holds. */
export function poolCapacity(options: NetworkOptions = {}): number {
  return 2 ** (SUBNET_BITS - pool(options).prefixLength);
}

/** The addresses of network `index`: its /30, the host side (first address) and the sandbox (second). */
export function addressesOf(
  index: number,
  options: NetworkOptions = {},
): { subnet: string; hostIp: string; sandboxIp: string } {
  if (!Number.isInteger(index) || index < 0 || index >= poolCapacity(options)) {
    throw new NetworkError(`network index ${index} is outside the pool ${options.pool ?? DEFAULT_POOL}`);
  }
  const base = pool(options).network + index * 2 ** (32 - SUBNET_BITS);
  return {
    subnet: formatCidr({ network: base, prefixLength: SUBNET_BITS }),
    hostIp: formatIpv4(base + 1),
    sandboxIp: formatIpv4(base + 2),
  };
}

/**
 * The lowest index not in `used`, starting after `after` and wrapping around, so that a just-freed index is
 * taken last (its conntrack entries and lingering veth have time to go). Pure: the caller passes every index
 * its store holds plus those of interfaces still present. Throws when the pool is full.
 */
export function allocateIndex(
  used: Iterable<number>,
  options: NetworkOptions & { after?: number } = {},
): number {
  const capacity = poolCapacity(options);
  const taken = new Set(used);
  const start = options.after === undefined ? 0 : options.after + 1;
  for (let step = 0; step < capacity; step++) {
    const index = (start + step) % capacity;
    if (!taken.has(index)) return index;
  }
  throw new NetworkError(`the sandbox network pool ${options.pool ?? DEFAULT_POOL} is full (${capacity})`);
}

// ---- names ----

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

export function netnsName(id: string): string {
  if (!ID_PATTERN.test(id))
    throw new NetworkError(`not a valid sandbox id for a namespace: ${JSON.stringify(id)}`);
  return `${NETNS_PREFIX}${id}`;
}

/** The file a process joins with `nsenter --net=` or setns(2). */
export function netnsPath(id: string): string {
  return `${NETNS_DIR}/${netnsName(id)}`;
}

export function hostInterfaceName(index: number): string {
  return `${HOST_IF_PREFIX}${index}`;
}

function interfaceExists(name: string): boolean {
  return existsSync(`/sys/class/net/${name}`);
}

async function writeSysctl(path: string, value: string): Promise<void> {
  await writeFile(`/proc/sys/${path}`, value);
}

/**
 * Creates the sandbox's namespace and link: `svc-<id>` with lo and eth0 up, its address and default route, and
 * `svch-<index>` on the host with forwarding on and IPv6 off. Fails, leaving nothing behind, when the index's
 * interface or the namespace already exists. Apply an egress policy (egress-policy.ts, even a null one) before
 * anything runs inside: it also turns connection tracking on.
 */
export async function createNetwork(
  id: string,
  index: number,
  options: NetworkOptions = {},
): Promise<SandboxNetwork> {
  const netns = netnsName(id);
  const hostIf = hostInterfaceName(index);
  const { hostIp, sandboxIp } = addressesOf(index, options);
  if (interfaceExists(hostIf)) throw new NetworkError(`interface ${hostIf} already exists`);
  if (existsSync(`${NETNS_DIR}/${netns}`))
    throw new NetworkError(`network namespace ${netns} already exists`);
  const prefix = `/${SUBNET_BITS}`;
  const hostBatch = [
    `netns add ${netns}`,
    `link add ${hostIf} type veth peer name ${SANDBOX_IF} netns ${netns}`,
    `addr add ${hostIp}${prefix} dev ${hostIf}`,
    `link set ${hostIf} up`,
  ];
  const sandboxBatch = [
    "link set lo up",
    `addr add ${sandboxIp}${prefix} dev ${SANDBOX_IF}`,
    `link set ${SANDBOX_IF} up`,
    `route add default via ${hostIp}`,
  ];
  try {
    await runTool("ip", ["-b", "-"], `${hostBatch.join("\n")}\n`);
  } catch (error) {
    // `ip -b` stops at the first failing line. Unless that was `netns add` (then someone else's namespace has the
    // name), remove the namespace made here: a veth made here goes with it. Never delete `svch-<index>` here: if
    // `link add` failed, it belongs to someone else.
    if (!/Command failed -:1\b/.test((error as ToolError).stderr ?? ""))
      await destroyNetwork(id).catch(() => {});
    throw error;
  }
  try {
    // The pair has no carrier until eth0 is up, so the host side has no IPv6 link-local address yet either.
    await writeSysctl(`net/ipv6/conf/${hostIf}/disable_ipv6`, "1").catch(() => {});
    await writeSysctl(`net/ipv4/conf/${hostIf}/forwarding`, "1");
    await runTool("ip", ["-n", netns, "-b", "-"], `${sandboxBatch.join("\n")}\n`);
  } catch (error) {
    await destroyNetwork(id, index).catch(() => {});
    throw error;
  }
  return { netns, hostIf, hostIp, sandboxIp, prefixLength: SUBNET_BITS, index };
}

/**
 * Removes the sandbox's namespace and, when `index` is given, its host interface right away (deleting one end
 * of a veth deletes both, synchronously; `ip netns del` alone lets the pair linger for seconds). Idempotent.
 * Processes still inside the namespace keep it alive: kill them first.
 */
export async function destroyNetwork(id: string, index?: number): Promise<void> {
  const netns = netnsName(id);
  const batch: string[] = [];
  if (index !== undefined && interfaceExists(hostInterfaceName(index))) {
    batch.push(`link del ${hostInterfaceName(index)}`);
  }
  if (existsSync(`${NETNS_DIR}/${netns}`)) batch.push(`netns del ${netns}`);
  if (batch.length === 0) return;
  try {
    await runTool("ip", ["-force", "-b", "-"], `${batch.join("\n")}\n`);
  } catch (error) {
    // A concurrent destroy may have won; what matters is that nothing is left.
    const left =
      (index !== undefined && interfaceExists(hostInterfaceName(index))) ||
      existsSync(`${NETNS_DIR}/${netns}`);
    if (left) throw error;
  }
}

export interface NetworkInventory {
  /** Sandbox ids that have a namespace. */
  ids: string[];
  /** Indexes that have a host interface (including ones lingering after their namespace was deleted). */
  indexes: number[];
}

/** What exists on the host: for leak checks, index allocation and reconciliation after a restart. */
export async function listNetworks(): Promise<NetworkInventory> {
  const names = async (dir: string) => readdir(dir).catch(() => [] as string[]);
  const ids = (await names(NETNS_DIR))
    .filter((name) => name.startsWith(NETNS_PREFIX))
    .map((name) => name.slice(NETNS_PREFIX.length))
    .sort();
  const indexes = (await names("/sys/class/net"))
    .map((name) => /^svch-(\d+)$/.exec(name)?.[1])
    .filter((digits): digits is string => digits !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  return { ids, indexes };
}
