import type { FastifyInstance } from "fastify";
import { createDaemonApp, type DaemonAppOptions } from "./app.ts";
import { registerFileRoutes } from "./files/routes.ts";
import { registerInfoRoutes } from "./info/routes.ts";
import { ProcessManager, type ProcessManagerOptions } from "./processes/manager.ts";
import { registerProcessRoutes } from "./processes/routes.ts";

export interface DaemonOptions extends DaemonAppOptions, ProcessManagerOptions {
  host: string;
  port: number;
}

export interface RunningDaemon {
  app: FastifyInstance;
  processes: ProcessManager;
  url: string;
  port: number;
  /** Stops serving, kills every process group it started, removes spooled output. Idempotent. */
  close(): Promise<void>;
}

/** Starts the runtime daemon: every runtime route of the contract but PTY, SSH and tunnels (their own issue). */
export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const app = createDaemonApp(options);
  const processes = new ProcessManager(options);
  registerProcessRoutes(app, processes);
  registerFileRoutes(app, { defaultUser: processes.defaultUser });
  registerInfoRoutes(app, processes);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  let closing: Promise<void> | undefined;
  return {
    app,
    processes,
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
    close: () => {
      closing ??= (async () => {
        await app.close();
        await processes.close();
      })();
      return closing;
    },
  };
}
