import { runtimeRoutes } from "@svc/contract/runtime";
// A JSON import, not a file read next to this module: the executor runs the daemon bundled into one file.
import daemonPackage from "../../package.json" with { type: "json" };
import { type DaemonApp, serve } from "../app.ts";
import type { ProcessManager } from "../processes/manager.ts";

/** The daemon's version: the `version` of its package.json. */
export const DAEMON_VERSION: string = daemonPackage.version;

/** `GET /api/v1/info` (forwarded auth) and `GET /api/v1/health` (open, for the executor's readiness probe). */
export function registerInfoRoutes(app: DaemonApp, processes: ProcessManager): void {
  serve(app, runtimeRoutes.runtimeInfo, () => ({
    version: DAEMON_VERSION,
    uptime_secs: Math.floor((Date.now() - processes.startedAt) / 1000),
    running_processes: processes.runningCount,
    total_processes: processes.totalCount,
  }));
  serve(app, runtimeRoutes.runtimeHealth, () => ({ healthy: true }));
}
