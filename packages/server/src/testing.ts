import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_TOKEN_FILE, API_KEY_FILE } from "./bootstrap.ts";
import { type Config, loadConfig } from "./config.ts";
import { type RunningServer, type StartOptions, startServer } from "./server.ts";

export interface TestServer extends RunningServer {
  dataDir: string;
  /** The bootstrap key of project `default`. */
  apiKey: string;
  adminToken: string;
  /** Closes the server and removes its data directory. */
  stop(): Promise<void>;
}

/** Where test servers keep sandbox images: `SVC_TEST_IMAGES_DIR`, else `.svc-test-cache/images` in the repository. */
export const TEST_IMAGES_DIR =
  process.env.SVC_TEST_IMAGES_DIR ??
  fileURLToPath(new URL("../../../.svc-test-cache/images", import.meta.url));

/**
 * A real server on a free loopback port with a fresh data directory. It runs no sandboxes unless the overrides
 * say `executor: "local"`.
 */
export async function startTestServer(
  overrides: Partial<Config> = {},
  options: StartOptions = {},
): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(path.join(tmpdir(), "svc-test-")));
  const config = loadConfig({
    env: {},
    overrides: {
      host: "127.0.0.1",
      port: 0,
      proxyPort: 0,
      sshPort: 0,
      relayPort: 0,
      logLevel: "silent",
      executor: "none",
      // The machine's image cache of tests: the default image is built once, not per test server.
      imageCacheDir: path.dirname(TEST_IMAGES_DIR),
      ...overrides,
      dataDir,
    },
  });
  // A test that gives its own image cache sees only that one.
  if (config.executor === "local" && overrides.imageCacheDir === undefined) {
    // Every test server shares one image cache: the default image is built once per machine, not per test.
    await mkdir(TEST_IMAGES_DIR, { recursive: true });
    await symlink(TEST_IMAGES_DIR, path.join(dataDir, "images")).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    });
  }
  const server = await startServer(config, options);
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

/**
 * A loopback port that was free a moment ago, for a program that must be told its port before it listens (an
 * sshd, a registry, the SSH gateway, where 0 means off). Anything given port 0 itself should get 0 instead.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
