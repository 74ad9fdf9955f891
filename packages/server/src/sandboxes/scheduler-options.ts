import type { FileSystemMount, TerminationReason } from "@svc/contract";
import type { Executor } from "../executor/executor.ts";
import type { ExecutorRegistry } from "../hosts/registry.ts";
import type { SandboxDialer } from "../hosts/relay.ts";
import type { Logger } from "../log.ts";
import type { MountResolution } from "./mount-resolution.ts";
import type { SandboxRepository, SandboxRow } from "./repository.ts";
import type { SnapshotRepository } from "./snapshots.ts";

/** Scheduling across several hosts (a PostgreSQL store): executors register and beat, placement picks among them. */
export interface ClusterScheduling {
  registry: ExecutorRegistry;
  /** This host places pending sandboxes, enforces timeouts and ends lost executors' sandboxes (the scheduler role). */
  places: boolean;
  /** This host's name (the executors table's host_id). */
  hostId: string;
  /** Where other hosts reach this host's relay (`host:port`), when it runs an executor. */
  relayAddress: string | null;
  /** An executor whose heartbeat is this old is lost. */
  lostAfterMs: number;
  /** How often this host's executor beats. */
  heartbeatMs?: number;
  /** How long after its row ended a sandbox still on this host is removed by the sweep (a stop under way finishes first). */
  sweepGraceMs?: number;
  /** Runs operations on the executor host of a sandbox that runs elsewhere (egress policy, mounts, suspend...). */
  dialer?: SandboxDialer;
}

export interface SchedulerOptions {
  repo: SandboxRepository;
  /** This host's executor; null when this server runs no sandboxes. */
  executor: Executor | null;
  secretOf: (sandboxId: string) => string;
  /** Longest lifetime; applies when a sandbox's timeout_secs is 0. 0 means none. */
  maxTimeoutSecs: number;
  log: Logger;
  now?: () => number;
  tickMs?: number;
  /** Sandboxes started at once. */
  startConcurrency?: number;
  /**
   * How often the daemons of running sandboxes are checked; one that fails twice ends `daemon_unreachable` when its
   * process is gone, or when it has not answered for `daemonUnresponsiveSecs` while its process still runs.
   */
  livenessIntervalMs?: number;
  /** How long a daemon whose process still runs may go unanswered (busy under a storm) before it is ended. */
  daemonUnresponsiveSecs?: number;
  /** Finds the tree of a file-system mount in the sandbox's project; without it, mounts cannot converge. */
  resolveMount?: (projectId: string, mount: FileSystemMount) => Promise<MountResolution>;
  /** Sandbox snapshots: the ones a restart interrupted end failed. */
  snapshots?: SnapshotRepository;
  /** Tops up warm pools (PoolKeeper.pass) at the start of each pass, so new warm sandboxes are placed in it. */
  keepPools?: (now: number) => Promise<unknown>;
  /** Several hosts: unset, this process's executor is the only one and placement is local. */
  cluster?: ClusterScheduling;
}

type Optional = "executor" | "resolveMount" | "snapshots" | "keepPools" | "cluster";

/** The options with their defaults filled in: what every part of the scheduler reads. */
export type SchedulerSettings = Required<Omit<SchedulerOptions, Optional>> &
  Pick<SchedulerOptions, Optional> & { executor: Executor | null };

/** How a sandbox is ended (Scheduler.terminate): the outcome, and the reason and details when it failed. */
export interface Ending {
  outcome: string;
  reason?: TerminationReason;
  details?: string;
}

/** Ends a sandbox (Scheduler.terminate), for the parts that end one: timeouts, mounts that cannot converge. */
export type Terminate = (row: SandboxRow, how: Ending) => Promise<SandboxRow>;
