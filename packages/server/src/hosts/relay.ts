import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { type ErrorCode, errorBody, errorCatalog, ServiceError } from "@svc/contract";
import type { Logger } from "../log.ts";
import { connectionThrough } from "../sandboxes/daemon-link.ts";
import type { SandboxRepository } from "../sandboxes/repository.ts";
import type { SettingsRepository } from "../store/settings.ts";
import type { ExecutorRegistry } from "./registry.ts";
import type { ControlOp, SandboxDialer } from "./sandbox-dialer.ts";

export type { ControlOp, SandboxDialer } from "./sandbox-dialer.ts";

/**
 * The host relay: how a proxy (or SSH gateway) on one host reaches a sandbox that runs on another. Sandbox
 * addresses are private to their executor host, so the proxy opens a TCP connection to the executor host's relay
 * and sends one line first:
 *
 *     SVCRELAY1 <sandbox id> <port> <executor id> <epoch ms> <nonce> <hmac>\n
 *
 * signed with the cluster secret (kept in the shared store; every host reads it at start). The relay checks the
 * signature, the clock (±30 s), that the nonce is new, and that the sandbox is running on this executor; then it
 * connects to that port of the sandbox's recorded address and relays bytes both ways. Anything else closes the
 * connection without an answer: a stranger, or a sandbox, learns nothing and reaches nothing. Authorization (the
 * API key, the project, the exposed ports) is the signing proxy's; the relay only serves its peers.
 */

const SETTING = "cluster_relay_secret";
const VERSION = "SVCRELAY1";
const MAX_SKEW_MS = 30_000;
const MAX_LINE = 512;

export async function clusterSecret(settings: SettingsRepository): Promise<Buffer> {
  return Buffer.from(await settings.getOrSet(SETTING, randomBytes(32).toString("base64url")), "base64url");
}

interface Preamble {
  sandboxId: string;
  port: number;
  executorId: string;
  at: number;
  nonce: string;
}

function sign(secret: Buffer, p: Preamble): string {
  return createHmac("sha256", secret)
    .update(`svc-relay:${VERSION}\n${p.sandboxId}\n${p.port}\n${p.executorId}\n${p.at}\n${p.nonce}`)
    .digest("base64url");
}

export function preambleLine(secret: Buffer, p: Omit<Preamble, "nonce" | "at">, at = Date.now()): string {
  const full = { ...p, at, nonce: randomBytes(12).toString("base64url") };
  return `${VERSION} ${full.sandboxId} ${full.port} ${full.executorId} ${full.at} ${full.nonce} ${sign(secret, full)}\n`;
}

/** Parses and checks one preamble line; null when it is not a valid, fresh, correctly signed one. */
export function checkPreamble(secret: Buffer, line: string, now: number): Preamble | null {
  const parts = line.split(" ");
  if (parts.length !== 7 || parts[0] !== VERSION) return null;
  const [, sandboxId, portText, executorId, atText, nonce, mac] = parts;
  if (!/^\d{1,5}$/.test(portText) || !/^\d{1,15}$/.test(atText)) return null;
  const p = { sandboxId, port: Number(portText), executorId, at: Number(atText), nonce };
  if (p.port < 0 || p.port > 65535 || Math.abs(now - p.at) > MAX_SKEW_MS) return null;
  const want = Buffer.from(sign(secret, p));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  return p;
}

const CONTROL_OPS = new Set<string>(["network", "mounts", "unmount", "suspend", "resume", "snapshot"]);

export type ControlHandler = (
  op: ControlOp,
  sandboxId: string,
  args: Record<string, unknown>,
) => Promise<unknown>;

export interface RelayOptions {
  secret: Buffer;
  executorId: string;
  repo: SandboxRepository;
  /** Serves the control channel (port 0); without it, control connections are closed. */
  control?: ControlHandler;
  log?: Logger;
  now?: () => number;
}

/** The relay server of an executor host (not listening: the caller listens on the configured address). */
export function createRelayServer(options: RelayOptions): net.Server {
  const now = options.now ?? Date.now;
  /** Nonces seen within the clock window: a captured preamble cannot be replayed. */
  const seen = new Map<string, number>();
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    client.on("error", () => client.destroy());
    client.setTimeout(10_000, () => client.destroy());
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(0x0a);
      if (end === -1) {
        if (buffered.length > MAX_LINE) client.destroy();
        return;
      }
      client.off("data", onData);
      client.pause();
      const rest = buffered.subarray(end + 1);
      open(client, buffered.subarray(0, end).toString("latin1"), rest).catch(() => client.destroy());
    };
    client.on("data", onData);
  });

  /** One control request on a connection whose preamble named `sandboxId`. */
  function controlServer(sandboxId: string): http.Server {
    return http.createServer(async (req, res) => {
      const answer = (status: number, body: unknown) => {
        const text = JSON.stringify(body ?? null);
        res.writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        });
        res.end(text);
      };
      try {
        let text = "";
        for await (const chunk of req) {
          text += chunk;
          if (text.length > 65_536) throw new ServiceError("INVALID_REQUEST", "control request too large");
        }
        const { op, args } = JSON.parse(text) as { op: string; args?: Record<string, unknown> };
        if (req.method !== "POST" || req.url !== "/control" || !CONTROL_OPS.has(op)) {
          throw new ServiceError("INVALID_REQUEST", `not a control operation: ${op}`);
        }
        answer(200, { result: (await options.control?.(op as ControlOp, sandboxId, args ?? {})) ?? null });
      } catch (error) {
        const code: ErrorCode = error instanceof ServiceError ? error.code : "INTERNAL_ERROR";
        answer(errorCatalog[code].status, errorBody(code, (error as Error).message));
      }
    });
  }

  async function open(client: net.Socket, line: string, rest: Buffer): Promise<void> {
    const t = now();
    for (const [nonce, at] of seen) if (t - at > 2 * MAX_SKEW_MS) seen.delete(nonce);
    const preamble = checkPreamble(options.secret, line, t);
    if (!preamble || seen.has(preamble.nonce) || preamble.executorId !== options.executorId) {
      options.log?.("host relay refused a connection", { from: client.remoteAddress });
      client.destroy();
      return;
    }
    seen.set(preamble.nonce, t);
    if (preamble.port === 0) {
      const row = await options.repo.get(preamble.sandboxId);
      if (!options.control || !row || row.executorId !== options.executorId || row.status === "terminated") {
        client.destroy();
        return;
      }
      if (rest.length > 0) client.unshift(rest);
      controlServer(preamble.sandboxId).emit("connection", client);
      client.resume();
      return;
    }
    const row = await options.repo.get(preamble.sandboxId);
    if (!row || row.executorId !== options.executorId || row.status !== "running" || !row.address) {
      client.destroy();
      return;
    }
    const upstream = net.connect({
      host: new URL(row.address).hostname,
      port: preamble.port,
      allowHalfOpen: true,
    });
    upstream.on("error", () => {
      upstream.destroy();
      client.destroy();
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    upstream.on("connect", () => {
      client.setTimeout(0);
      upstream.setNoDelay(true);
      client.setNoDelay(true);
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }
  return server;
}

export function createSandboxDialer(options: {
  secret: Buffer;
  registry: ExecutorRegistry;
  /** This host's executor id, or null when it runs none. */
  localExecutorId: string | null;
  connectTimeoutMs?: number;
}): SandboxDialer {
  const addresses = new Map<string, { address: string | null; at: number }>();
  async function relayAddress(executorId: string): Promise<string | null> {
    const cached = addresses.get(executorId);
    if (cached && Date.now() - cached.at < 5000) return cached.address;
    const address = (await options.registry.get(executorId))?.relayAddress ?? null;
    addresses.set(executorId, { address, at: Date.now() });
    return address;
  }
  const dialer: SandboxDialer = {
    isRemote: (row) => row.executorId !== null && row.executorId !== options.localExecutorId,
    async control(row, op, args = {}) {
      const body = JSON.stringify({ op, args });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          {
            method: "POST",
            path: "/control",
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
            // Snapshots copy a disk before they answer.
            timeout: 600_000,
            ...connectionThrough((port) => dialer.connect(row, port), 0),
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => {
              text += chunk;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 502, text }));
            res.on("error", reject);
          },
        );
        req.on("timeout", () => req.destroy(new Error("the executor host did not answer in time")));
        req.on("error", (error) =>
          reject(new ServiceError("CONNECTION_FAILED", `the sandbox's executor host: ${error.message}`)),
        );
        req.end(body);
      });
      const parsed = JSON.parse(answer.text || "null") as {
        result?: unknown;
        code?: ErrorCode;
        message?: string;
      };
      if (answer.status >= 200 && answer.status < 300) return parsed?.result ?? null;
      const code = parsed?.code && parsed.code in errorCatalog ? parsed.code : "INTERNAL_ERROR";
      throw new ServiceError(code, parsed?.message ?? `the executor host answered ${answer.status}`);
    },
    async connect(row, port) {
      const executorId = row.executorId;
      const address = executorId ? await relayAddress(executorId) : null;
      if (!executorId || !address) {
        throw Object.assign(new Error("the sandbox's executor host is not registered"), {
          code: "EHOSTUNREACH",
        });
      }
      const colon = address.lastIndexOf(":");
      const host = address.slice(0, colon).replace(/^\[|\]$/g, "");
      const socket = net.connect({ host, port: Number(address.slice(colon + 1)) });
      await new Promise<void>((resolve, reject) => {
        socket.setTimeout(options.connectTimeoutMs ?? 10_000, () =>
          socket.destroy(
            Object.assign(new Error("connecting to the relay timed out"), { code: "ETIMEDOUT" }),
          ),
        );
        socket.once("connect", () => {
          socket.setTimeout(0);
          socket.off("error", reject);
          resolve();
        });
        socket.once("error", reject);
      });
      socket.setNoDelay(true);
      socket.write(preambleLine(options.secret, { sandboxId: row.id, port, executorId }));
      return socket;
    },
  };
  return dialer;
}
