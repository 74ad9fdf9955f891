import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Client, type ClientOptions } from "@svc/sdk";
import { createMcpServer } from "./mcp-server.ts";
import { McpSession } from "./session.ts";

/**
 * Serves MCP on this process's stdin and stdout (for desktop and IDE agents, which start `svc mcp` themselves),
 * acting with the client options' key (default SERVICE_API_KEY, then the local server's key file). The key is
 * checked first, so a wrong one fails at once with the API's error. Resolves when the client goes away (stdin
 * ends) or on SIGTERM/SIGINT, after the sandboxes the session made are ended.
 */
export async function serveStdio(options: ClientOptions = {}): Promise<void> {
  const client = new Client(options);
  await client.whoami();
  const session = new McpSession(client, { localFiles: true });
  const server = createMcpServer(session);
  const transport = new StdioServerTransport();
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await session.close();
      await server.close().catch(() => undefined);
      finish();
    })();
    return closing;
  };
  transport.onclose = () => void close();
  await server.connect(transport);
  process.stdin.once("end", close);
  process.stdin.once("close", close);
  process.once("SIGTERM", close);
  process.once("SIGINT", close);
  await done;
  process.stdin.off("end", close);
  process.stdin.off("close", close);
  process.off("SIGTERM", close);
  process.off("SIGINT", close);
}
