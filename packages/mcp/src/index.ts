export { createMcpHttpMount, type McpHttpMount, type McpHttpOptions } from "./http.ts";
export { createMcpServer } from "./mcp-server.ts";
export { McpSession } from "./session.ts";
export { serveStdio } from "./stdio.ts";
export { TOOL_NAMES } from "./tools.ts";
