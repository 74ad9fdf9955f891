import { createHash } from "node:crypto";
import {
  LOG_LEVELS,
  type LogsResponse,
  runtimeRoutes,
  ServiceError,
  type sandboxRoutes,
} from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import type { SandboxDialer } from "../hosts/relay.ts";
import { daemonGet, sandboxLink } from "./daemon-link.ts";
import type { SandboxRow } from "./repository.ts";

/** Records one logs call returns when it names neither head nor tail: the newest ones. */
const DEFAULT_TAIL = 1000;

/** The level a stream's lines are logged at. */
const LEVEL_OF = { stdout: LOG_LEVELS.info, stderr: LOG_LEVELS.error } as const;

/** A stable UUID (version 8, name-based) for one output line of one process of one sandbox. */
function recordUuid(sandboxId: string, pid: number, seq: number): string {
  const hex = createHash("sha256")
    .update(`${sandboxId}\0${pid}\0${seq}`)
    .digest("hex")
    .slice(0, 32)
    .split("");
  hex[12] = "8";
  hex[16] = ((Number.parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

interface LogDeps {
  found(auth: AuthContext, idOrName: string): Promise<SandboxRow>;
  namespaceOf(auth: AuthContext): Promise<string>;
  secretOf(sandboxId: string): string;
  /** Several hosts: reaches sandboxes that run on another host's executor, through its relay. */
  dialer?: SandboxDialer;
}

/**
 * A sandbox's logs, in the public SDKs' shapes: every output line of its processes as a log record (stdout at
 * level info, stderr at error), read from the live daemon. A sandbox that is not running has no daemon and so no
 * logs: they are not kept beyond the sandbox.
 */
export function sandboxLogHandlers(
  deps: LogDeps,
): Pick<Handlers<typeof sandboxRoutes>, "getSandboxLogs" | "listSandboxLogProcesses"> {
  async function daemonLogs(row: SandboxRow, query: URLSearchParams): Promise<LogsResponse | null> {
    if (row.status !== "running" || !row.address) return null;
    const path = `${runtimeRoutes.getLogs.path}?${query}`;
    try {
      return await daemonGet<LogsResponse>(sandboxLink(row, deps.secretOf(row.id), deps.dialer), path);
    } catch (error) {
      throw new ServiceError(
        "CONNECTION_FAILED",
        `the sandbox's logs could not be read: ${(error as Error).message}`,
      );
    }
  }

  return {
    getSandboxLogs: async ({ params, query, auth }) => {
      const row = await deps.found(auth, params.sandbox_id);
      const daemonQuery = new URLSearchParams();
      if (query.level) {
        const streams = (["stdout", "stderr"] as const).filter((s) => query.level?.includes(LEVEL_OF[s]));
        if (streams.length === 0) return { logs: [] };
        if (streams.length === 1) daemonQuery.set("stream", streams[0]);
      }
      if (query.processId) daemonQuery.set("pids", query.processId.join(","));
      if (query.body) daemonQuery.set("contains", query.body);
      let skip = 0;
      if (query.head !== undefined) {
        if (query.nextToken !== undefined) {
          if (!/^\d{1,10}$/.test(query.nextToken)) {
            throw new ServiceError("INVALID_CURSOR", "nextToken is not a token of this listing");
          }
          skip = Number(query.nextToken);
        }
        daemonQuery.set("head", String(query.head));
        daemonQuery.set("skip", String(skip));
      } else daemonQuery.set("tail", String(query.tail ?? DEFAULT_TAIL));
      const found = await daemonLogs(row, daemonQuery);
      if (!found) return { logs: [] };
      const namespace = await deps.namespaceOf(auth);
      const logs = found.records.map((record) => ({
        timestamp: record.timestamp,
        uuid: recordUuid(row.id, record.pid, record.seq),
        namespace,
        application: "sandbox",
        sandboxId: row.id,
        resourceAttributes: [
          ["process_id", String(record.pid)],
          ["process_pid", String(record.pid)],
          ["process_command", record.command],
          ["stream", record.stream],
        ] as [string, string][],
        body: record.line,
        logAttributes: JSON.stringify({ stream: record.stream }),
        level: LEVEL_OF[record.stream],
      }));
      const next = skip + logs.length;
      return query.head !== undefined && next < found.matched ? { logs, nextToken: String(next) } : { logs };
    },

    listSandboxLogProcesses: async ({ params, auth }) => {
      const row = await deps.found(auth, params.sandbox_id);
      const found = await daemonLogs(row, new URLSearchParams({ head: "1" }));
      return {
        processes: (found?.processes ?? []).map((p) => ({
          processId: String(p.pid),
          processPid: String(p.pid),
          processCommand: p.command,
          processManagedId: "",
          processManagedName: "",
          firstSeen: p.first_seen,
          lastSeen: p.last_seen,
          logCount: p.line_count,
        })),
      };
    },
  };
}
