/**
 * # sandbox-resolver
 *
 * The name server of each sandbox: UDP and TCP port 53 on the host side of its veth (its gateway address, which
 * its resolv.conf names). A query is answered from the host's upstream servers, and its policy decides first:
 * - a name an `allow_out` entry covers (`example.com`, or any name under `*.example.com`): answered, and the A
 *   records' addresses join the sandbox's `dyn4` set for their TTL before the answer goes back, so the
 *   connection that follows is let through whatever the name resolves to now;
 * - a name a `deny_out` entry covers: answered, its addresses joining `dyndeny4` (deny wins);
 * - any other name: answered when the sandbox has internet access, REFUSED when it has not, so names carry no
 *   data out of a closed sandbox (its egress table lets DNS go to this server only).
 * Addresses a sandbox got elsewhere (an /etc/hosts line, a literal) grant nothing: only the sets decide.
 */
import dgram from "node:dgram";
import net from "node:net";
import type { Logger } from "../../log.ts";
import { answerAddresses, errorResponse, parseAnswers, parseQuestion, RCODE_REFUSED } from "./dns-message.ts";
import { classifyHostname, type EgressRules } from "./egress-policy.ts";

/** An answer waited for from an upstream server before the next is asked. */
const UPSTREAM_TIMEOUT_MS = 2000;
const RCODE_SERVFAIL = 2;

export interface ResolverSandbox {
  id: string;
  /** Where it listens: the host side of the sandbox's veth. */
  hostIp: string;
  rules: EgressRules | null;
}

export interface SandboxResolverOptions {
  /** Upstream servers: `address` or `address:port`. */
  upstreams: string[];
  /** Puts a name's addresses in the sandbox's allow or deny set for `ttlSecs` (egress-policy.ts). */
  admit: (
    id: string,
    rules: EgressRules,
    name: string,
    addresses: string[],
    ttlSecs: number,
  ) => Promise<unknown>;
  log: Logger;
  /** Port to listen on (tests use their own); default 53. */
  port?: number;
}

interface Listener {
  sandbox: ResolverSandbox;
  udp: dgram.Socket;
  tcp: net.Server;
  /** When each address admitted to a set (`allow 1.2.3.4`) expires there, to skip an nft call that adds nothing. */
  admitted: Map<string, number>;
}

function upstreamOf(text: string): { host: string; port: number } {
  const match = /^(.+?)(?::(\d+))?$/.exec(text);
  return { host: match?.[1] ?? text, port: Number(match?.[2] ?? 53) };
}

export class SandboxResolver {
  readonly #o: SandboxResolverOptions;
  readonly #listeners = new Map<string, Listener>();

  constructor(options: SandboxResolverOptions) {
    this.#o = options;
  }

  /** Serves a sandbox (listening on its host address), or updates the rules of one served already. */
  async serve(sandbox: ResolverSandbox): Promise<void> {
    const existing = this.#listeners.get(sandbox.id);
    if (existing) {
      existing.sandbox = sandbox;
      // A new policy is a new table: nothing is admitted in it yet.
      existing.admitted.clear();
      return;
    }
    const port = this.#o.port ?? 53;
    const udp = dgram.createSocket("udp4");
    const tcp = net.createServer({ pauseOnConnect: false });
    const listener: Listener = { sandbox, udp, tcp, admitted: new Map() };
    udp.on("message", (message, from) => {
      this.#answer(listener, message).then(
        (reply) => reply && udp.send(reply, from.port, from.address),
        (error) => this.#o.log("sandbox DNS query failed", { sandbox: sandbox.id, error: String(error) }),
      );
    });
    udp.on("error", (error) =>
      this.#o.log("sandbox DNS socket failed", { sandbox: sandbox.id, error: String(error) }),
    );
    tcp.on("connection", (socket) => this.#serveTcp(listener, socket));
    tcp.on("error", (error) =>
      this.#o.log("sandbox DNS socket failed", { sandbox: sandbox.id, error: String(error) }),
    );
    await new Promise<void>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(port, sandbox.hostIp, () => {
        udp.off("error", reject);
        resolve();
      });
    });
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once("error", reject);
        tcp.listen(port, sandbox.hostIp, () => {
          tcp.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      udp.close();
      throw error;
    }
    // The server's life is not held by its sandboxes' name servers.
    udp.unref();
    tcp.unref();
    this.#listeners.set(sandbox.id, listener);
  }

  /** Stops serving a sandbox; one not served is fine. */
  release(id: string): void {
    const listener = this.#listeners.get(id);
    if (!listener) return;
    this.#listeners.delete(id);
    listener.udp.close();
    listener.tcp.close();
  }

  close(): void {
    for (const id of [...this.#listeners.keys()]) this.release(id);
  }

  #serveTcp(listener: Listener, socket: net.Socket): void {
    let buffered = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        this.#answer(listener, Buffer.from(message)).then(
          (reply) => {
            if (!reply || socket.destroyed) return;
            const length = Buffer.alloc(2);
            length.writeUInt16BE(reply.length);
            socket.write(Buffer.concat([length, reply]));
          },
          () => socket.destroy(),
        );
      }
      if (buffered.length > 65_537) socket.destroy();
    });
  }

  /** The answer to one query, or null to drop it. */
  async #answer(listener: Listener, query: Buffer): Promise<Buffer | null> {
    const { sandbox } = listener;
    const question = parseQuestion(query);
    if (!question) return null;
    const list = sandbox.rules ? classifyHostname(sandbox.rules, question.name) : null;
    if (sandbox.rules && list === null && !sandbox.rules.internet) {
      return errorResponse(query, question, RCODE_REFUSED);
    }
    const response = await this.#forward(query);
    if (!response) return errorResponse(query, question, RCODE_SERVFAIL);
    if (sandbox.rules && list !== null) {
      const parsed = parseAnswers(response);
      const { addresses, ttl } = answerAddresses(parsed?.answers ?? []);
      // An nft call only when it adds an address, or one with less than half its new TTL left.
      const until = Date.now() + Math.max(1, ttl) * 1000;
      const halfway = until - (Math.max(1, ttl) * 1000) / 2;
      const fresh = addresses.filter(
        (address) => (listener.admitted.get(`${list} ${address}`) ?? 0) < halfway,
      );
      if (fresh.length > 0) {
        await this.#o.admit(sandbox.id, sandbox.rules, question.name, addresses, ttl);
        for (const address of addresses) listener.admitted.set(`${list} ${address}`, until);
      }
    }
    return response;
  }

  /** Asks the upstream servers in turn (the query's id changed, and restored on the answer). */
  async #forward(query: Buffer): Promise<Buffer | null> {
    for (const upstream of this.#o.upstreams) {
      const { host, port } = upstreamOf(upstream);
      const id = Math.floor(Math.random() * 65_536);
      const asked = Buffer.from(query);
      asked.writeUInt16BE(id, 0);
      const answer = await new Promise<Buffer | null>((resolve) => {
        const socket = dgram.createSocket(net.isIPv6(host) ? "udp6" : "udp4");
        const done = (value: Buffer | null) => {
          clearTimeout(timer);
          socket.close();
          resolve(value);
        };
        const timer = setTimeout(() => done(null), UPSTREAM_TIMEOUT_MS);
        socket.on("error", () => done(null));
        socket.on("message", (message) => {
          if (message.length >= 2 && message.readUInt16BE(0) === id) done(message);
        });
        socket.send(asked, port, host);
      });
      if (answer) {
        answer.writeUInt16BE(query.readUInt16BE(0), 0);
        return answer;
      }
    }
    return null;
  }
}
