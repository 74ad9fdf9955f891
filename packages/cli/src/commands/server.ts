import path from "node:path";
import { createMcpHttpMount } from "@svc/mcp";
import { API_KEY_FILE, ConfigError, loadConfig, startServer } from "@svc/server";
import { UsageError } from "../usage.ts";

/** `svc server`: runs the server's roles (every one by default) in this process until SIGTERM or SIGINT. */
export async function serverCommand(args: string[]): Promise<number | undefined> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ argv: args });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  // The MCP endpoint on the control API port: Streamable HTTP at /mcp, a Bearer API key per session.
  const server = await startServer(config, { mounts: [createMcpHttpMount()] });
  const store = config.databaseUrl ? "PostgreSQL" : `SQLite in ${config.dataDir}`;
  if (server.roles.has("api")) {
    console.log(`svc server: control API on ${server.url} (store: ${store}); MCP at ${server.url}/mcp`);
  } else console.log(`svc server: no control API on this host (store: ${store})`);
  if (server.roles.size < 5) console.log(`svc server: roles ${[...server.roles].join(", ")}`);
  if (server.relayAddress) console.log(`svc server: host relay on ${server.relayAddress}`);
  if (server.createdApiKey) {
    console.log(
      `\nAPI key of project 'default' (shown once; also in ${path.join(config.dataDir, API_KEY_FILE)}):`,
    );
    console.log(`  ${server.createdApiKey}\n`);
  }
  for (const note of server.notes) console.log(`note: ${note}`);

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.log(`svc server: ${signal}, shutting down`);
      server.close().then(resolve, (error) => {
        console.error(`svc server: shutdown failed: ${(error as Error).message}`);
        resolve();
      });
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  return 0;
}
