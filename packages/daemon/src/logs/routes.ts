import type { LogRecord, LogsResponse } from "@svc/contract/runtime";
import { MAX_LOG_RECORDS, runtimeRoutes } from "@svc/contract/runtime";
import type { Static } from "typebox";
import { type DaemonApp, serve } from "../app.ts";
import type { ManagedProcess, ProcessManager } from "../processes/manager.ts";

type LogLine = Static<typeof LogRecord>;

/** Every line a process's output store holds (spooled ones included), with the time its block arrived. */
async function linesOf(proc: ManagedProcess): Promise<LogLine[]> {
  const records: LogLine[] = [];
  const cursor = proc.output.cursor({ snapshot: true });
  try {
    for (let blocks = await cursor.next(); blocks; blocks = await cursor.next()) {
      for (const block of blocks) {
        for (const line of block.text.split("\n")) {
          records.push({
            pid: proc.pid,
            seq: records.length,
            command: proc.command,
            stream: block.stream,
            timestamp: block.timestamp,
            line,
          });
        }
      }
    }
  } finally {
    cursor.close();
  }
  return records;
}

/**
 * `GET /api/v1/logs`: the output of every process the daemon keeps, one record per line, merged in time order,
 * then filtered (pids, stream, text) and cut (head with skip, or tail; at most MAX_LOG_RECORDS). The control
 * API serves it to the public SDKs as the sandbox's logs.
 */
export function registerLogRoutes(app: DaemonApp, processes: ProcessManager): void {
  serve(app, runtimeRoutes.getLogs, async ({ query }): Promise<LogsResponse> => {
    const pids = query.pids ? new Set(query.pids.split(",").map(Number)) : null;
    const summaries: LogsResponse["processes"] = [];
    let matching: LogLine[] = [];
    for (const proc of processes.list()) {
      const lines = await linesOf(proc);
      if (lines.length === 0) continue;
      summaries.push({
        pid: proc.pid,
        command: proc.command,
        first_seen: lines[0].timestamp,
        last_seen: lines[lines.length - 1].timestamp,
        line_count: lines.length,
      });
      if (pids && !pids.has(proc.pid)) continue;
      for (const record of lines) {
        if (query.stream && record.stream !== query.stream) continue;
        if (query.contains !== undefined && !record.line.includes(query.contains)) continue;
        matching.push(record);
      }
    }
    // Stable: lines of one process keep their order, processes interleave by time.
    matching.sort((a, b) => a.timestamp - b.timestamp);
    const matched = matching.length;
    if (query.head !== undefined) {
      const from = query.skip ?? 0;
      matching = matching.slice(from, from + query.head);
    } else {
      matching = matching.slice(-(query.tail ?? MAX_LOG_RECORDS));
    }
    return { records: matching, matched, processes: summaries };
  });
}
