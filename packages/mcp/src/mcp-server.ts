import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { McpSession } from "./session.ts";
import { registerTools } from "./tools.ts";

/** What the server tells clients about itself at initialize. */
const INSTRUCTIONS =
  "Sandboxes: isolated Linux machines to run commands and code in (sandbox_* tools, run_code). " +
  "Documents: parse files, URLs or text into markdown (document_parse) and extract JSON-schema data with " +
  "citations (document_extract). Sandboxes this session creates end when it closes unless created with keep.";

/** An MCP server with every tool, acting for one session. */
export function createMcpServer(session: McpSession): McpServer {
  const server = new McpServer({ name: "svc", version: "0.1.0" }, { instructions: INSTRUCTIONS });
  registerTools(server, session);
  return server;
}
