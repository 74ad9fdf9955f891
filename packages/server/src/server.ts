import { readFileSync } from "node:fs";
import type http from "node:http";
import type net from "node:net";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { Mount } from "./api/mounts.ts";
import { buildApp } from "./app.ts";
import { authenticateKey } from "./auth/authenticate.ts";
import { bootstrap } from "./bootstrap.ts";
import { type Config, ConfigError } from "./config.ts";
import type { DocumentsOptions } from "./documents/index.ts";
import type { HostLookup } from "./executor/linux/egress-policy.ts";
import { LocalExecutor, type LocalExecutorOptions } from "./executor/linux/local-executor.ts";
import { resolveMount } from "./filesystems/mount-source.ts";
import { createFileSystemRepository } from "./filesystems/repository.ts";
import { LocalFileSystemStorage } from "./filesystems/storage.ts";
import { createExecutorRegistry } from "./hosts/registry.ts";
import {
  type ControlHandler,
  clusterSecret,
  createRelayServer,
  createSandboxDialer,
  type SandboxDialer,
} from "./hosts/relay.ts";
import { hostIdOf, isClustered, type Role, rolesOf } from "./hosts/roles.ts";
import { createImageRepository } from "./images/archives.ts";
import { createRegistryCredentialRepository } from "./images/credentials.ts";
import { loadSecretBox } from "./images/secret-box.ts";
import { ImageSweeper, requestImageSweeps } from "./images/sweep.ts";
import type { Logger } from "./log.ts";
import { createProxyServer } from "./proxy/proxy.ts";
import { sandboxSecretDeriver } from "./sandboxes/auth-secret.ts";
import { PoolKeeper } from "./sandboxes/pool-keeper.ts";
import { createPoolRepository } from "./sandboxes/pools.ts";
import { createSandboxRepository, type SandboxRepository } from "./sandboxes/repository.ts";
import type { SandboxDeps } from "./sandboxes/routes.ts";
import { Scheduler } from "./sandboxes/scheduler.ts";
import type { ClusterScheduling } from "./sandboxes/scheduler-options.ts";
import { createSnapshotRepository } from "./sandboxes/snapshots.ts";
import { createTemplateRepository } from "./sandboxes/templates.ts";
import { createSshGateway, type SshGatewayOptions } from "./ssh/gateway.ts";
import { loadGatewayKeys } from "./ssh/gateway-keys.ts";
import { openStore, type Store } from "./store/store.ts";

export interface RunningServer {
  url: string;
  port: number;
  /** Port of the sandbox proxy: `<id>.<proxy domain>:<proxyPort>`. */
  proxyPort: number;
  /** Port of the SSH gateway, or null when it is off (`sshPort` 0). */
  sshPort: number | null;
  /** The sandbox domain: repository, scheduler, secrets. */
  sandboxes: SandboxDeps;
  config: Config;
  app: FastifyInstance;
  /** The sandbox proxy's HTTP server (made but not listening when this host has no proxy role). */
  proxy: http.Server;
  /** The roles this process runs. */
  roles: Set<Role>;
  /** Several hosts: where other hosts reach this host's relay (`host:port`), when it runs an executor. */
  relayAddress: string | null;
  store: Store;
  /** The API key created by this start (first start of a data directory), else null. */
  createdApiKey: string | null;
  adminToken: string | null;
  notes: string[];
  /** Stops accepting requests, lets the ones in flight finish, closes the store. Idempotent. */
  close(): Promise<void>;
}

/** What a host of several runs besides the single-host parts. */
interface ClusterParts {
  registry: ReturnType<typeof createExecutorRegistry>;
  /** This executor host's relay, listening; null without an executor. */
  relay: net.Server | null;
  relayAddress: string | null;
  dialer: SandboxDialer;
}

/**
 * The sandbox domain: repository, this host's executor (if any), the cluster parts (with several hosts) and the
 * scheduler, started.
 */
async function startSandboxes(
  store: Store,
  config: Config,
  notes: string[],
  lookup?: HostLookup,
  dnsUpstreams?: string[],
  onStarted?: LocalExecutorOptions["onStarted"],
): Promise<SandboxDeps & { cluster: ClusterParts | null }> {
  const repo = createSandboxRepository(store.db);
  const credentials = createRegistryCredentialRepository(
    store.db,
    await loadSecretBox(config.secretKeyFile ?? join(config.dataDir, "secret-key")),
  );
  const log = jsonLog(config);
  const roles = rolesOf(config);
  const executor =
    config.executor === "local" && roles.has("executor")
      ? await startLocalExecutor(config, log, notes, {
          lookup,
          dnsUpstreams,
          onStarted,
          allowedRegistries: config.allowedRegistries ?? [],
          registryCredentials: (projectId, registry) => credentials.reveal(projectId, registry),
        })
      : null;
  const imageSweeper =
    executor && !executor.unavailableReason()
      ? new ImageSweeper({
          db: store.db,
          sweep: (keep, graceMs) => executor.sweepImages(keep, graceMs),
          graceMs: config.imageGraceSecs * 1000,
          log,
          // Several hosts: a DELETE /images served on another host sweeps here too.
          ...(isClustered(config) ? { requests: { settings: store.settings } } : {}),
        })
      : null;
  const secretOf = await sandboxSecretDeriver(store.settings);
  const cluster = isClustered(config)
    ? await startCluster(store, config, {
        repo,
        log,
        notes,
        executor,
        control: (op, id, args) => scheduler.control(op, id, args),
      })
    : null;
  const fileSystems = {
    repo: createFileSystemRepository(store.db),
    storage: new LocalFileSystemStorage(config.dataDir),
  };
  const snapshots = createSnapshotRepository(store.db);
  const pools = createPoolRepository(store.db);
  const keeper = new PoolKeeper({
    repo,
    pools,
    terminate: (row) => scheduler.terminate(row, { outcome: "deleted" }),
  });
  const scheduler: Scheduler = new Scheduler({
    repo,
    executor,
    snapshots,
    secretOf,
    maxTimeoutSecs: config.sandboxMaxTimeoutSecs,
    daemonUnresponsiveSecs: config.daemonUnresponsiveSecs,
    log,
    resolveMount: (projectId, mount) => resolveMount(fileSystems, projectId, mount),
    keepPools: (now) => keeper.pass(now),
    cluster: cluster ? clusterScheduling(config, cluster, roles) : undefined,
  });
  try {
    await scheduler.start();
    imageSweeper?.start();
  } catch (error) {
    cluster?.relay?.close();
    throw error;
  }
  return {
    cluster,
    dialer: cluster?.dialer,
    store,
    repo,
    scheduler,
    secretOf,
    fileSystems,
    snapshots,
    templates: createTemplateRepository(store.db),
    images: {
      credentials,
      images: createImageRepository(store.db),
      importArchive:
        executor && !executor.unavailableReason()
          ? (tarFile, name) => (executor as LocalExecutor).importImage(tarFile, name)
          : null,
      sweeper: imageSweeper,
      requestSweeps: isClustered(config) ? () => requestImageSweeps(store.settings) : null,
      tmpDir: join(config.dataDir, "tmp"),
      maxBytes: config.maxFileBytes,
    },
    tmpDir: join(config.dataDir, "tmp"),
    maxUploadBytes: config.maxFileBytes,
    pools,
    poolKeeper: keeper,
    log,
    executorId: executor?.id ?? null,
    ingress: {
      proxyDomain: config.proxyDomain,
      proxyHost: config.proxyHost,
      proxyPort: config.proxyPort,
      scheme: config.proxyTlsCert ? "https" : "http",
      publicUrl: config.proxyPublicUrl,
    },
  };
}

/** The sandbox domain's log: one JSON line per message on stderr, none when the log level is silent. */
function jsonLog(config: Config): Logger {
  return (message, fields) => {
    if (config.logLevel !== "silent") console.error(JSON.stringify({ msg: message, ...fields }));
  };
}

/** This host's executor, initialized; a host that cannot run sandboxes says why in the start notes. */
async function startLocalExecutor(
  config: Config,
  log: Logger,
  notes: string[],
  options: Pick<
    LocalExecutorOptions,
    "lookup" | "dnsUpstreams" | "onStarted" | "allowedRegistries" | "registryCredentials"
  >,
): Promise<LocalExecutor> {
  const executor = new LocalExecutor({
    dataDir: config.dataDir,
    imageCacheDir: config.imageCacheDir,
    hostId: hostIdOf(config),
    cpuOvercommit: config.cpuOvercommit,
    memoryOvercommit: config.memoryOvercommit,
    log,
    ...options,
  });
  await executor.init();
  const reason = executor.unavailableReason();
  if (reason)
    notes.push(`this host runs no sandboxes (${reason}): they wait pending with no_executors_available`);
  return executor;
}

/**
 * Several hosts: the executors table, the relay other hosts reach this executor's sandboxes by (when this host
 * runs sandboxes), and the dialer this host's proxy reaches theirs with.
 */
async function startCluster(
  store: Store,
  config: Config,
  parts: {
    repo: SandboxRepository;
    log: Logger;
    notes: string[];
    executor: LocalExecutor | null;
    /** Serves the operations other hosts ask of this host's sandboxes (the scheduler's `control`). */
    control: ControlHandler;
  },
): Promise<ClusterParts> {
  const registry = createExecutorRegistry(store.db);
  const secret = await clusterSecret(store.settings);
  const local = parts.executor && !parts.executor.unavailableReason() ? parts.executor : null;
  const relay = local
    ? await listenRelay(
        createRelayServer({
          secret,
          executorId: local.id,
          repo: parts.repo,
          log: parts.log,
          control: parts.control,
        }),
        config,
      )
    : null;
  return {
    registry,
    relay,
    relayAddress: relay ? relayAddressOf(relay, config, parts.notes) : null,
    dialer: createSandboxDialer({ secret, registry, localExecutorId: local?.id ?? null }),
  };
}

async function listenRelay(relay: net.Server, config: Config): Promise<net.Server> {
  await new Promise<void>((resolve, reject) => {
    relay.once("error", reject);
    relay.listen(config.relayPort, config.relayHost, () => resolve());
  });
  return relay;
}

/** Where other hosts reach the relay (`host:port`); a loopback address gets a note, since they cannot. */
function relayAddressOf(relay: net.Server, config: Config, notes: string[]): string {
  const bound = relay.address();
  const port = typeof bound === "object" && bound ? bound.port : config.relayPort;
  const host = config.relayAdvertise ?? config.relayHost;
  if (/^(127\.|::1$|localhost$)/.test(host)) {
    notes.push(
      `the host relay is on ${host}: proxies on other hosts cannot reach this executor's sandboxes (set relayHost or relayAdvertise)`,
    );
  }
  return `${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/** The scheduler's view of the cluster: this host places sandboxes when it has the scheduler role. */
function clusterScheduling(config: Config, cluster: ClusterParts, roles: Set<Role>): ClusterScheduling {
  return {
    registry: cluster.registry,
    places: roles.has("scheduler"),
    hostId: hostIdOf(config),
    relayAddress: cluster.relayAddress,
    lostAfterMs: config.executorLostSecs * 1000,
    dialer: cluster.dialer,
  };
}

/** The proxy's certificate and key, read once at start; both or neither must be configured. */
function proxyTls(config: Config): { cert: Buffer; key: Buffer } | undefined {
  if (!config.proxyTlsCert && !config.proxyTlsKey) return undefined;
  if (!config.proxyTlsCert || !config.proxyTlsKey) {
    throw new ConfigError("proxyTlsCert and proxyTlsKey go together: set both or neither");
  }
  return { cert: readFileSync(config.proxyTlsCert), key: readFileSync(config.proxyTlsKey) };
}

/** Opens the store, bootstraps it, and serves the control API. */
export interface StartOptions {
  /** Settings of the documents service and its test hooks (see documents/settings.ts). */
  documents?: DocumentsOptions;
  /** Settings of the SSH gateway that are not configuration (tests: the backend user, the sandbox sshd port). */
  ssh?: Pick<SshGatewayOptions, "backendUser" | "sandboxSshdPort">;
  /** How the local executor resolves egress hostnames (tests: names of a fake internet); default the host's. */
  lookup?: HostLookup;
  /** The name servers the sandboxes' resolver asks (tests: a fake one); default the host's. */
  dnsUpstreams?: string[];
  /** Called with each sandbox's start timeline (the local executor's; benchmarks print it). */
  onSandboxStarted?: LocalExecutorOptions["onStarted"];
  /** Handlers the control API port serves at path prefixes (the CLI's MCP endpoint); closed before the API stops. */
  mounts?: readonly Mount[];
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl ?? undefined });
  try {
    const boot = await bootstrap(store, config);
    const sandboxes = await startSandboxes(
      store,
      config,
      boot.notes,
      options.lookup,
      options.dnsUpstreams,
      options.onSandboxStarted,
    );
    const roles = rolesOf(config);
    const { cluster } = sandboxes;
    const stopSandboxes = async () => {
      await sandboxes.scheduler.stop();
      await sandboxes.images.sweeper?.stop();
      await new Promise((resolve) => (cluster?.relay ? cluster.relay.close(resolve) : resolve(null)));
    };
    let app: FastifyInstance;
    try {
      // The app also runs the parse workers and webhook deliveries: built on every host, served with the api role.
      app = await buildApp({
        config: roles.has("worker") ? config : { ...config, parseWorkers: 0 },
        store,
        adminTokenHash: boot.adminTokenHash,
        sandboxes,
        documents: roles.has("worker") ? options.documents : { ...options.documents, workers: 0 },
        mounts: roles.has("api") ? options.mounts : [],
      });
      if (roles.has("api")) await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      await stopSandboxes();
      throw error;
    }
    const proxy = createProxyServer({
      domain: config.proxyDomain,
      repo: sandboxes.repo,
      authenticate: (key) => authenticateKey(store, key),
      secretOf: sandboxes.secretOf,
      tls: proxyTls(config),
      dialer: cluster?.dialer,
    });
    try {
      if (roles.has("proxy")) {
        await new Promise<void>((resolve, reject) => {
          proxy.once("error", reject);
          proxy.listen(config.proxyPort, config.proxyHost, () => resolve());
        });
      }
    } catch (error) {
      await app.close();
      await stopSandboxes();
      throw error;
    }
    let gateway: ReturnType<typeof createSshGateway> | null = null;
    if (config.sshPort !== 0 && roles.has("proxy")) {
      gateway = createSshGateway({
        repo: sandboxes.repo,
        authenticate: (key) => authenticateKey(store, key),
        secretOf: sandboxes.secretOf,
        keys: await loadGatewayKeys(store.settings),
        dialer: cluster?.dialer,
        log: (message, fields) => {
          if (config.logLevel !== "silent") console.error(JSON.stringify({ msg: message, ...fields }));
        },
        ...options.ssh,
      });
      const ssh = gateway.server;
      try {
        await new Promise<void>((resolve, reject) => {
          ssh.once("error", reject);
          ssh.listen(config.sshPort, config.sshHost, () => resolve());
        });
      } catch (error) {
        proxy.close();
        await app.close();
        await stopSandboxes();
        throw error;
      }
    }
    const sshAddress = gateway?.server.address();
    const proxyAddress = proxy.address();
    const proxyPort =
      typeof proxyAddress === "object" && proxyAddress
        ? proxyAddress.port
        : roles.has("proxy")
          ? config.proxyPort
          : 0;
    sandboxes.ingress.proxyPort = proxyPort;
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : roles.has("api") ? config.port : 0;
    const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
      port,
      proxyPort,
      sshPort: sshAddress && typeof sshAddress === "object" ? sshAddress.port : null,
      sandboxes,
      config,
      app,
      proxy,
      roles,
      relayAddress: cluster?.relayAddress ?? null,
      store,
      createdApiKey: boot.createdApiKey,
      adminToken: boot.adminToken,
      notes: boot.notes,
      close: () => {
        closing ??= (async () => {
          // Mounts first: what they hold (MCP sessions) may still call the API to end their sandboxes.
          await Promise.all((options.mounts ?? []).map((mount) => mount.close?.().catch(() => undefined)));
          proxy.closeAllConnections();
          // A request in flight at the close leaves its keep-alive connection idle once answered: closed as soon
          // as it is, not at the keep-alive timeout (72 s), which held a SIGTERM's exit that long.
          const idle = setInterval(() => app.server.closeIdleConnections(), 50);
          try {
            await Promise.all([
              app.close(),
              new Promise((resolve) => (proxy.listening ? proxy.close(resolve) : resolve(null))),
              gateway?.close(),
            ]);
          } finally {
            clearInterval(idle);
          }
          await stopSandboxes();
          await store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
