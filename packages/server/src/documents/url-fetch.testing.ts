import dc from "node:diagnostics_channel";
import dns from "node:dns";
import { once } from "node:events";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { syncBuiltinESMExports } from "node:module";
import { BlockList, isIP, type LookupFunction, type Socket } from "node:net";
import type { AllowPrivate } from "./url-fetch.ts";

/**
 * Test support for outbound HTTP: a net that keeps every socket of the process on loopback, a `lookup` that
 * maps names from a table (never real DNS), and a loopback HTTP server.
 */

/** The allowPrivate hook of tests: loopback addresses only. */
export const allowLoopback: AllowPrivate = (address) => address.startsWith("127.") || address === "::1";

/** Every address but 127.0.0.0/8 and ::1. */
function nonLoopback(): BlockList {
  const list = new BlockList();
  list.addRange("0.0.0.0", "126.255.255.255", "ipv4");
  list.addRange("128.0.0.0", "255.255.255.255", "ipv4");
  list.addAddress("::", "ipv6");
  list.addRange("::2", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ipv6");
  return list;
}

/**
 * A safety net under the code being tested, so that even a broken guard cannot reach the network: every client
 * socket of the process gets a BlockList refusing any address but loopback (checked by Node just before it
 * connects), and `dns.lookup` (the default resolver of sockets) answers ENOTFOUND without asking any DNS server.
 * `stopped` lists the addresses and names it refused (each one is a test failure); `remove` takes it away.
 */
export function keepTrafficOnLoopback(): { stopped: string[]; remove(): void } {
  const list = nonLoopback();
  const stopped: string[] = [];
  const onSocket = (message: unknown) => {
    const socket = (message as { socket: Socket & { blockList?: BlockList } }).socket;
    socket.blockList = list;
    socket.on("connectionAttempt", (address: string, _port: number, family: number) => {
      if (list.check(address, family === 6 ? "ipv6" : "ipv4")) stopped.push(address);
    });
  };
  dc.subscribe("net.client.socket", onSocket);
  const realLookup = dns.lookup;
  const offlineLookup = (hostname: string, ...rest: unknown[]) => {
    const callback = rest.at(-1) as (error: Error | null, ...found: unknown[]) => void;
    const options = rest.length > 1 ? rest[0] : undefined;
    const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all;
    // Literal addresses and localhost (as servers' listen() asks) need no DNS.
    const local = hostname === "localhost" ? "127.0.0.1" : isIP(hostname) ? hostname : null;
    if (local) {
      const family = isIP(local);
      if (all) process.nextTick(callback, null, [{ address: local, family }]);
      else process.nextTick(callback, null, local, family);
      return;
    }
    stopped.push(`dns:${hostname}`);
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (no DNS in tests)`), {
      code: "ENOTFOUND",
    });
    process.nextTick(callback, error);
  };
  dns.lookup = offlineLookup as typeof dns.lookup;
  syncBuiltinESMExports();
  return {
    stopped,
    remove: () => {
      dc.unsubscribe("net.client.socket", onSocket);
      dns.lookup = realLookup;
      syncBuiltinESMExports();
    },
  };
}

/**
 * A `lookup` answering from a table of names to addresses; any other name fails with ENOTFOUND. `calls` lists
 * the names asked for.
 */
export function tableLookup(table: Record<string, string | string[]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const found = table[hostname.toLowerCase()];
    if (found === undefined) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      process.nextTick(callback, error, "", 0);
      return;
    }
    const addresses = [found].flat().map((address) => ({ address, family: isIP(address) }));
    if (options.all) process.nextTick(callback, null, addresses);
    else process.nextTick(callback, null, addresses[0].address, addresses[0].family);
  };
  return Object.assign(lookup, { calls });
}

export interface LoopbackServer {
  url: string;
  port: number;
  /** Requests received, in order. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: Buffer }[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that records each request (with its body) and answers with `handle`. */
export async function startLoopbackServer(
  handle: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void,
): Promise<LoopbackServer> {
  const requests: LoopbackServer["requests"] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
    handle(request, response, body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
