import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { Client, SvcError } from "@svc/sdk";
import { createMcpServer } from "./mcp-server.ts";
import { McpSession } from "./session.ts";

export interface McpHttpOptions {
  /** Path the endpoint answers (default `/mcp`). */
  prefix?: string;
  /** A session with no request for this long is closed, and its sandboxes ended (default 30 minutes). */
  idleTimeoutMs?: number;
  /** Largest JSON-RPC body read (default 4 MiB: document_parse may carry a document in base64). */
  maxBodyBytes?: number;
}

/** A path prefix served on the control API port (the server's `StartOptions.mounts` entry). */
export interface McpHttpMount {
  prefix: string;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Closes every session, ending the sandboxes they made; the API must still answer meanwhile. */
  close(): Promise<void>;
  /** How many sessions are open (tests, metrics). */
  sessions(): number;
}

interface Entry {
  transport: StreamableHTTPServerTransport;
  session: McpSession;
  /** SHA-256 of the API key that opened the session: every later request must carry the same key. */
  keyHash: string;
  timer: NodeJS.Timeout | undefined;
  /** POSTs (tool calls) whose response is still open: a session is not idle while one runs. */
  active: number;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** A JSON-RPC error answer, as MCP clients expect outside a call. */
function rpcError(response: ServerResponse, status: number, code: number, message: string) {
  sendJson(response, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}

/** The control API as reached by this very request: the MCP tools call it back through the SDK. */
function apiUrlOf(request: IncomingMessage): string {
  const address = (request.socket.localAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  return `http://${address.includes(":") ? `[${address}]` : address}:${request.socket.localPort}`;
}

async function readJson(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new RangeError(`the body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/**
 * The Streamable HTTP endpoint of the MCP server. A session starts with an initialize POST carrying
 * `Authorization: Bearer <API key>`, checked against the API; its tools act with that key, and later requests of
 * the session must carry the same key (another key gets 404, as for an unknown session). A session ends on
 * DELETE, after `idleTimeoutMs` without requests, or when the mount closes; its sandboxes end with it.
 */
export function createMcpHttpMount(options: McpHttpOptions = {}): McpHttpMount {
  const prefix = options.prefix ?? "/mcp";
  const idleMs = options.idleTimeoutMs ?? 30 * 60_000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessions = new Map<string, Entry>();
  let closed = false;

  const end = async (id: string) => {
    const entry = sessions.get(id);
    if (!entry) return;
    sessions.delete(id);
    clearTimeout(entry.timer);
    await entry.session.close();
    await entry.transport.close().catch(() => undefined);
  };
  const touch = (id: string, entry: Entry) => {
    clearTimeout(entry.timer);
    if (entry.active > 0) return;
    entry.timer = setTimeout(() => void end(id), idleMs);
    entry.timer.unref();
  };
  /** Counts a POST as activity until its response closes (an SSE answer stays open while the tool runs). */
  const track = (id: string, entry: Entry, request: IncomingMessage, response: ServerResponse) => {
    if (request.method === "POST") {
      entry.active += 1;
      response.once("close", () => {
        entry.active -= 1;
        if (sessions.get(id) === entry) touch(id, entry);
      });
    }
    touch(id, entry);
  };

  async function open(request: IncomingMessage, response: ServerResponse, key: string): Promise<void> {
    if (request.method !== "POST") {
      return rpcError(response, 400, -32000, "Bad Request: no session: start one with an initialize POST");
    }
    let body: unknown;
    try {
      body = await readJson(request, maxBody);
    } catch (error) {
      return rpcError(response, 400, -32700, `Parse error: ${(error as Error).message}`);
    }
    if (!isInitializeRequest(body)) {
      return rpcError(response, 400, -32000, "Bad Request: no session: start one with an initialize POST");
    }
    const client = new Client({ apiKey: key, baseUrl: apiUrlOf(request) });
    try {
      await client.whoami();
    } catch (error) {
      if (error instanceof SvcError && error.status === 401) {
        return sendJson(response, 401, { error: error.message, code: "UNAUTHORIZED" }, bearerChallenge);
      }
      throw error;
    }
    const session = new McpSession(client, { localFiles: false });
    const server = createMcpServer(session);
    const entry: Entry = {
      session,
      keyHash: sha256(key),
      timer: undefined,
      active: 0,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, entry);
          touch(id, entry);
        },
      }),
    };
    entry.transport.onclose = () => {
      const id = entry.transport.sessionId;
      if (id) void end(id);
      else void session.close();
    };
    await server.connect(entry.transport);
    await entry.transport.handleRequest(request, response, body);
  }

  return {
    prefix,
    sessions: () => sessions.size,
    async handle(request, response) {
      try {
        const path = (request.url ?? "").split("?")[0].replace(/\/+$/, "");
        if (path !== prefix)
          return sendJson(response, 404, { error: `no route ${path}`, code: "ROUTE_NOT_FOUND" });
        if (closed)
          return sendJson(response, 503, { error: "the server is stopping", code: "INTERNAL_ERROR" });
        const key = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
        if (!key) {
          return sendJson(
            response,
            401,
            { error: "MCP needs the API key as Authorization: Bearer <key>", code: "UNAUTHORIZED" },
            bearerChallenge,
          );
        }
        const id = request.headers["mcp-session-id"];
        if (typeof id !== "string") return await open(request, response, key);
        const entry = sessions.get(id);
        if (!entry || entry.keyHash !== sha256(key))
          return rpcError(response, 404, -32001, "Session not found");
        track(id, entry, request, response);
        await entry.transport.handleRequest(request, response);
      } catch (error) {
        if (!response.headersSent) {
          sendJson(response, 500, { error: (error as Error).message, code: "INTERNAL_ERROR" });
        } else response.end();
      }
    },
    async close() {
      closed = true;
      await Promise.all([...sessions.keys()].map(end));
    },
  };
}

const bearerChallenge = { "www-authenticate": 'Bearer realm="svc"' };
