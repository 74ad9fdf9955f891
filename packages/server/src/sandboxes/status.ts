import type { SandboxStatus } from "@svc/contract";

/**
 * The statuses of a sandbox that is not over: it holds (or waits for) an executor's resources, is scheduled,
 * reconciled after a restart and ended by a DELETE. Named once so every pass and transition agrees on them.
 */
export const LIVE_STATUSES: SandboxStatus[] = [
  "pending",
  "running",
  "suspending",
  "suspended",
  "snapshotting",
];
