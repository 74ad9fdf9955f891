/**
 * One "host" of a multi-host test in its own process: `node host.testing.ts <config overrides JSON> [documents
 * settings JSON]`. The test runs it inside a network namespace. Prints `{url, proxyPort, relayAddress}` on one
 * line once it serves; SIGTERM closes it.
 */
import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config.ts";
import { startServer } from "../server.ts";
import { TEST_IMAGES_DIR } from "../testing.ts";

const [overrides, documents = "{}"] = process.argv.slice(2);
if (!overrides) throw new Error("usage: host.testing.ts <config overrides JSON> [documents settings JSON]");
// The tests' machine-wide image cache, as every test server uses: a host in a network namespace cannot build one.
const config = loadConfig({
  env: {},
  overrides: { logLevel: "silent", imageCacheDir: path.dirname(TEST_IMAGES_DIR), ...JSON.parse(overrides) },
});
if (config.executor === "local") {
  await mkdir(config.dataDir, { recursive: true });
  await symlink(TEST_IMAGES_DIR, path.join(config.dataDir, "images")).catch((error) => {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  });
}
const server = await startServer(config, { documents: { ...JSON.parse(documents), testHooks: true } });
process.stdout.write(
  `${JSON.stringify({ url: server.url, proxyPort: server.proxyPort, relayAddress: server.relayAddress })}\n`,
);
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
