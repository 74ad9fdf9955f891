import { readFileSync } from "node:fs";
import { runtimeRoutes } from "@svc/contract";
import type { FastifyInstance } from "fastify";
import { serve } from "../app.ts";
import type { ProcessManager } from "../processes/manager.ts";

/** The daemon's version: the `version` of its package.json. */
export const DAEMON_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** `GET /api/v1/info` (forwarded auth) and `GET /api/v1/health` (open, for the executor's readiness probe). */
export function registerInfoRoutes(app: FastifyInstance, processes: ProcessManager): void {
  serve(app, runtimeRoutes.runtimeInfo, () => ({
    version: DAEMON_VERSION,
    uptime_secs: Math.floor((Date.now() - processes.startedAt) / 1000),
    running_processes: processes.runningCount,
    total_processes: processes.totalCount,
  }));
  serve(app, runtimeRoutes.runtimeHealth, () => ({ healthy: true }));
}
