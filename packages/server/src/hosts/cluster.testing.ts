import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { after } from "node:test";
import pg from "pg";
import { LocalExecutor } from "../executor/linux/local-executor.ts";

/**
 * Several "hosts" on this machine, for tests and benchmarks: each a server process in a network namespace of its
 * own with its own address on a bridge, all on one PostgreSQL (in a schema of their own, reached through a
 * forwarder on the bridge address, since the test PostgreSQL listens on loopback only). Needs root.
 */

const HOST_SCRIPT = new URL("./host.testing.ts", import.meta.url).pathname;

/** Why a test of several hosts cannot run here (it needs root for `needs`, and SVC_TEST_DATABASE_URL), or false. */
export function clusterSkip(needs = "network namespaces and sandboxes"): string | false {
  if (process.getuid?.() !== 0) return `needs root (${needs})`;
  return process.env.SVC_TEST_DATABASE_URL ? false : "SVC_TEST_DATABASE_URL is not set";
}

/**
 * The clean-ups of a test file, run in reverse order after all its tests (also after a failure); a clean-up that
 * throws is logged and the others still run.
 */
export function cleanupsAfterAll(): (() => Promise<unknown> | unknown)[] {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error("cleanup:", error);
      }
    }
  });
  return cleanups;
}

/** A JSON call of the API on `host` with `apiKey`; answers the status and the parsed body (undefined when empty). */
export async function callApi(
  host: Pick<ClusterHost, "url">,
  apiKey: string,
  method: string,
  route: string,
  body?: unknown,
) {
  const response = await fetch(`${host.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read by shape.
  return { status: response.status, text, body: (text ? JSON.parse(text) : undefined) as any };
}

/** Polls `probe` every 200 ms until it gives a value; throws naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface ClusterHost {
  name: string;
  netns: string;
  address: string;
  dataDir: string;
  child: ChildProcess | null;
  url: string;
  proxyPort: number;
}

export interface Cluster {
  hosts: ClusterHost[];
  /** The cluster's database as this process reaches it (loopback), its schema selected. */
  localDatabaseUrl: string;
  /** Starts a host's server with these roles and config overrides; resolves once it serves. */
  start(
    host: ClusterHost,
    roles: string,
    overrides?: Record<string, unknown>,
    documents?: Record<string, unknown>,
  ): Promise<void>;
  /** Ends a host's server with a signal and waits for its exit. */
  kill(host: ClusterHost, signal: NodeJS.Signals): Promise<void>;
  /**
   * Kills every server, removes what their sandboxes left on this machine, the namespaces, the bridge, the
   * forwarder and the schema. Each step runs even when one before it failed.
   */
  dispose(): Promise<void>;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"] });

/**
 * Claims a /24 of 10.251.0.0/16 for a cluster: creating its bridge, named after it (`svc-hosts-<n>`), is the
 * claim, since a name in use makes `ip link add` fail. Two clusters on this machine at once (this test and the
 * hosts bench, or runs from two checkouts) therefore never share host addresses: with the same /24 twice, this
 * process's connections to a host go to the bridge routed first, maybe the other cluster's host of that address,
 * which may not listen then (ECONNREFUSED) or knows none of this cluster's keys and sandboxes. A /24 with an
 * address on an interface here (such as a killed run's bridge) is passed over.
 */
function claimSubnet(): { subnet: string; bridge: string } {
  const listed = JSON.parse(ip("-j", "-4", "addr", "show").toString("utf8")) as {
    addr_info?: { local?: string }[];
  }[];
  const inUse = listed.flatMap((link) => (link.addr_info ?? []).map((a) => a.local ?? ""));
  const first = randomInt(250);
  for (let step = 0; step < 250; step++) {
    const n = (first + step) % 250;
    const subnet = `10.251.${n}`;
    if (inUse.some((address) => address.startsWith(`${subnet}.`))) continue;
    const bridge = `svc-hosts-${n}`;
    try {
      ip("link", "add", bridge, "type", "bridge");
      return { subnet, bridge };
    } catch (error) {
      // Another cluster's: the next /24.
      if (!/File exists/.test(String((error as { stderr?: Buffer }).stderr ?? ""))) throw error;
    }
  }
  throw new Error("no free /24 in 10.251.0.0/16 for a cluster's bridge");
}

export async function createCluster(options: {
  databaseUrl: string;
  names: string[];
  /** Lines the hosts log, when they log (logLevel info). */
  onLog?: (host: string, line: string) => void;
}): Promise<Cluster> {
  const tag = randomBytes(2).toString("hex");
  const cleanups: (() => unknown)[] = [];
  const hosts: ClusterHost[] = [];

  async function dispose(): Promise<void> {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error("cluster cleanup:", error);
      }
    }
  }

  async function kill(host: ClusterHost, signal: NodeJS.Signals): Promise<void> {
    const child = host.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill(signal);
    await exited;
    host.child = null;
  }

  try {
    const schema = `svc_hosts_${process.pid}_${tag}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await admin(`CREATE SCHEMA ${schema}`);
    cleanups.push(() => admin(`DROP SCHEMA ${schema} CASCADE`));

    const { subnet, bridge } = claimSubnet();
    cleanups.push(() => ip("link", "del", bridge));
    ip("addr", "add", `${subnet}.1/24`, "dev", bridge);
    ip("link", "set", bridge, "up");
    for (const [i, name] of options.names.entries()) {
      const netns = `svc-host-${tag}-${name}`;
      ip("netns", "add", netns);
      cleanups.push(() => ip("netns", "del", netns));
      const outside = `svhv${tag}${i}`;
      const inside = `svhp${tag}${i}`;
      ip("link", "add", outside, "type", "veth", "peer", "name", inside);
      ip("link", "set", inside, "netns", netns);
      ip("link", "set", outside, "master", bridge, "up");
      ip("-n", netns, "link", "set", "lo", "up");
      ip("-n", netns, "addr", "add", `${subnet}.${11 + i}/24`, "dev", inside);
      ip("-n", netns, "link", "set", inside, "up");
      hosts.push({
        name,
        netns,
        address: `${subnet}.${11 + i}`,
        dataDir: await mkdtemp(path.join(tmpdir(), `svc-host-${name}-`)),
        child: null,
        url: "",
        proxyPort: 0,
      });
    }
    // Last in, first out: servers are killed, then their sandboxes' leftovers and data directories removed.
    cleanups.push(async () => {
      for (const host of hosts) {
        const executor = new LocalExecutor({
          dataDir: host.dataDir,
          hostId: host.name,
          cpuOvercommit: 1,
          memoryOvercommit: 1,
          log: () => {},
        });
        for (const id of await executor.leftovers()) {
          // A suspended sandbox's frozen processes take a kill only once thawed.
          await executor.thaw(id).catch(() => undefined);
          await executor.stop(id).catch(() => undefined);
        }
        await rm(host.dataDir, { recursive: true, force: true });
      }
    });
    cleanups.push(async () => {
      for (const host of hosts) await kill(host, "SIGKILL");
    });

    const target = new URL(options.databaseUrl);
    const open = new Set<net.Socket>();
    const forwarder = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      open.add(client);
      client.on("close", () => open.delete(client));
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      for (const side of [client, upstream]) {
        side.on("error", end);
        side.on("close", end);
      }
    });
    forwarder.listen(0, `${subnet}.1`);
    await once(forwarder, "listening");
    // Closed with its connections (a server still running holds some).
    cleanups.push(
      () =>
        new Promise((resolve) => {
          forwarder.close(resolve);
          for (const socket of open) socket.destroy();
        }),
    );
    const hostsDatabase = new URL(options.databaseUrl);
    hostsDatabase.host = `${subnet}.1:${(forwarder.address() as net.AddressInfo).port}`;
    hostsDatabase.searchParams.set("options", `-c search_path=${schema}`);
    const localDatabase = new URL(options.databaseUrl);
    localDatabase.searchParams.set("options", `-c search_path=${schema}`);

    async function start(
      host: ClusterHost,
      roles: string,
      overrides: Record<string, unknown> = {},
      documents: Record<string, unknown> = {},
    ): Promise<void> {
      const config = {
        dataDir: host.dataDir,
        databaseUrl: hostsDatabase.toString(),
        roles,
        hostId: host.name,
        host: host.address,
        port: 8900,
        proxyHost: host.address,
        proxyPort: 9443,
        sshHost: host.address,
        sshPort: roles.includes("proxy") ? 2222 : 0,
        relayHost: host.address,
        relayPort: 9510,
        executor: roles.includes("executor") ? "local" : "none",
        ...overrides,
      };
      // Only the network namespace changes: cgroups, /run/netns and the mounts stay the machine's.
      const child = spawn(
        "nsenter",
        [
          `--net=/run/netns/${host.netns}`,
          process.execPath,
          HOST_SCRIPT,
          JSON.stringify(config),
          JSON.stringify(documents),
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      host.child = child;
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
      const ready = new Promise<string>((resolve) =>
        lines.on("line", (line) => {
          if (line.includes('"relayAddress"')) resolve(line);
          else options.onLog?.(host.name, line);
        }),
      );
      const line = await Promise.race([
        ready,
        once(child, "exit").then(([code]): string => {
          throw new Error(`host ${host.name} exited with ${code} before serving`);
        }),
      ]);
      const served = JSON.parse(line) as { url: string; proxyPort: number };
      host.url = served.url;
      host.proxyPort = served.proxyPort;
    }

    return { hosts, localDatabaseUrl: localDatabase.toString(), start, kill, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
