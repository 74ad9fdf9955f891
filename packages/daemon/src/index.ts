export { createDaemonApp, type DaemonAppOptions, isForwarded, sendError, serve } from "./app.ts";
export { type DaemonOptions, type RunningDaemon, startDaemon } from "./daemon.ts";
