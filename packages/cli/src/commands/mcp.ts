import { serveStdio } from "@svc/mcp";
import { parse } from "../usage.ts";

/** `svc mcp`: the MCP server on stdin/stdout, for agent clients that start it as a command. */
export async function mcpCommand(args: string[]): Promise<number | undefined> {
  parse(args, {});
  await serveStdio();
  return 0;
}
