/**
 * A server in a child process, for tests that kill it: `node serve.testing.ts <data dir> <documents settings JSON>`.
 * Prints `{url, apiKey}` on one line once it listens; SIGTERM closes it.
 */
import { startTestServer } from "../testing.ts";

const [dataDir, settings = "{}"] = process.argv.slice(2);
if (!dataDir) throw new Error("usage: serve.testing.ts <data dir> [documents settings JSON]");
const server = await startTestServer(
  { dataDir },
  { documents: { ...JSON.parse(settings), testHooks: true } },
);
process.stdout.write(`${JSON.stringify({ url: server.url, apiKey: server.apiKey })}\n`);
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
