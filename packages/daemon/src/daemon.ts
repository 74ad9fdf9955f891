import { createDaemonApp, type DaemonApp, type DaemonAppOptions } from "./app.ts";
import { registerFileRoutes } from "./files/routes.ts";
import { registerInfoRoutes } from "./info/routes.ts";
import { registerLogRoutes } from "./logs/routes.ts";
import { readProcessDefaults } from "./processes/defaults.ts";
import { ProcessManager, type ProcessManagerOptions } from "./processes/manager.ts";
import { registerProcessRoutes } from "./processes/routes.ts";
import { PtyManager, type PtyManagerOptions } from "./pty/manager.ts";
import { registerPtyRoutes } from "./pty/routes.ts";
import { registerSshRoutes } from "./ssh/routes.ts";
import { SshdManager, type SshdOptions } from "./ssh/sshd.ts";
import { registerTunnelRoutes } from "./tunnels/routes.ts";
import { UpgradeRouter } from "./upgrade.ts";

export interface DaemonOptions
  extends DaemonAppOptions,
    ProcessManagerOptions,
    SshdOptions,
    PtyManagerOptions {
  host: string;
  port: number;
  /**
   * A file of process defaults in the sandbox's root (PROCESS_DEFAULTS_FILE, from a template's Dockerfile
   * build); its env lies over `defaultEnv`, its working_dir and user replace `defaultWorkingDir` and `defaultUser`.
   */
  processDefaultsFile?: string;
}

export interface RunningDaemon {
  app: DaemonApp;
  processes: ProcessManager;
  ptys: PtyManager;
  sshd: SshdManager;
  url: string;
  port: number;
  /** Stops serving, kills every process group it started, removes spooled output. Idempotent. */
  close(): Promise<void>;
}

/** The daemon built (every route registered) but not yet listening; see `buildDaemon`. */
export interface BuiltDaemon {
  app: DaemonApp;
  processes: ProcessManager;
  ptys: PtyManager;
  sshd: SshdManager;
  /** Stops everything it made (including the app). Idempotent. */
  close(): Promise<void>;
}

/** The options with the defaults of `processDefaultsFile` laid over them. */
function withProcessDefaults<T extends Omit<DaemonOptions, "host" | "port">>(options: T): T {
  if (!options.processDefaultsFile) return options;
  const log = options.log ?? ((message: string) => process.stderr.write(`svc-daemon: ${message}\n`));
  const file = readProcessDefaults(options.processDefaultsFile, log);
  return {
    ...options,
    defaultEnv: { ...options.defaultEnv, ...file.env },
    defaultWorkingDir: file.workingDir ?? options.defaultWorkingDir,
    defaultUser: file.user ?? options.defaultUser,
  };
}

/**
 * Builds the runtime daemon: every runtime route of the contract registered, nothing listening yet. Used by
 * `startDaemon`, and by `svc-daemon --warm-up`, which loads all the daemon's code to fill a compile cache.
 */
export function buildDaemon(options: Omit<DaemonOptions, "host" | "port">): BuiltDaemon {
  const app = createDaemonApp(options);
  const processes = new ProcessManager(withProcessDefaults(options));
  registerProcessRoutes(app, processes);
  registerFileRoutes(app, { defaultUser: processes.defaultUser });
  registerInfoRoutes(app, processes);
  registerLogRoutes(app, processes);
  const upgrades = new UpgradeRouter(options);
  const ptys = new PtyManager(processes.defaultUser, options);
  registerPtyRoutes(app, upgrades, ptys);
  registerTunnelRoutes(upgrades);
  upgrades.attach(app);
  const log = options.log ?? ((message: string) => process.stderr.write(`svc-daemon: ${message}\n`));
  const sshd = new SshdManager(options, () => processes.defaultUser, log);
  registerSshRoutes(app, sshd);
  let closing: Promise<void> | undefined;
  return {
    app,
    processes,
    ptys,
    sshd,
    close: () => {
      closing ??= (async () => {
        await ptys.close();
        await app.close();
        await sshd.close();
        await processes.close();
      })();
      return closing;
    },
  };
}

/** Starts the runtime daemon: every runtime route of the contract. */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const built = buildDaemon(options);
  const { app } = built;
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    ...built,
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
  };
}
