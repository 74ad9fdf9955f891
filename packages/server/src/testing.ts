import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ADMIN_TOKEN_FILE, API_KEY_FILE } from "./bootstrap.ts";
import { type Config, loadConfig } from "./config.ts";
import { type RunningServer, startServer } from "./server.ts";

export interface TestServer extends RunningServer {
  dataDir: string;
  /** The bootstrap key of project `default`. */
  apiKey: string;
  adminToken: string;
  /** Closes the server and removes its data directory. */
  stop(): Promise<void>;
}

/** A real server on a free loopback port with a fresh data directory, for tests of every package. */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(path.join(tmpdir(), "svc-test-")));
  const config = loadConfig({
    env: {},
    overrides: { host: "127.0.0.1", port: 0, proxyPort: 0, logLevel: "silent", ...overrides, dataDir },
  });
  const server = await startServer(config);
  const apiKey = (await readFile(path.join(dataDir, API_KEY_FILE), "utf8")).trim();
  const adminToken = (await readFile(path.join(dataDir, ADMIN_TOKEN_FILE), "utf8")).trim();
  return {
    ...server,
    dataDir,
    apiKey,
    adminToken,
    stop: async () => {
      await server.close();
      if (!overrides.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
