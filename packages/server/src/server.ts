import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.ts";
import { bootstrap } from "./bootstrap.ts";
import type { Config } from "./config.ts";
import { openStore, type Store } from "./store/store.ts";

export interface RunningServer {
  url: string;
  port: number;
  config: Config;
  app: FastifyInstance;
  store: Store;
  /** The API key created by this start (first start of a data directory), else null. */
  createdApiKey: string | null;
  adminToken: string | null;
  notes: string[];
  /** Stops accepting requests, lets the ones in flight finish, closes the store. Idempotent. */
  close(): Promise<void>;
}

/** Opens the store, bootstraps it, and serves the control API. */
export async function startServer(config: Config): Promise<RunningServer> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl ?? undefined });
  try {
    const boot = await bootstrap(store, config);
    const app = await buildApp({ config, store, adminTokenHash: boot.adminTokenHash });
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
      port,
      config,
      app,
      store,
      createdApiKey: boot.createdApiKey,
      adminToken: boot.adminToken,
      notes: boot.notes,
      close: () => {
        closing ??= (async () => {
          await app.close();
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
