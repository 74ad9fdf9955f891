import type { SandboxNetworkAccessControl, StartStep, TerminationReason } from "@svc/contract";

/** A long step of a start that a pending sandbox's `pending_reason` names. */
export type StartStage = "building_image" | "pulling_image";

/** What an executor needs to start one sandbox. */
export interface SandboxSpec {
  id: string;
  /** The sandbox's project: whose registry credentials pull its OCI image. */
  projectId?: string;
  name: string | null;
  image: string | null;
  cpus: number;
  memoryMb: number;
  diskMb: number;
  entrypoint: string[] | null;
  network: SandboxNetworkAccessControl | null;
  /** The forwarded-auth secret the daemon inside will require. */
  authSecret: string;
  /** Start from this root disk (a snapshot's, taken by `snapshot`, or a template's) instead of an empty one. */
  snapshotId?: string | null;
  /**
   * What a long start is waiting for, with a line: `building_image` (the built-in image, once per machine) or
   * `pulling_image` (an OCI image not yet in the executor's store).
   */
  onProgress?: (stage: StartStage, line: string) => void;
}

export interface StartedSandbox {
  /** The executor's handle of the sandbox (e.g. the pid of its init). */
  containerId: string;
  /** Where the daemon answers, e.g. `http://10.213.0.2:9501`. */
  address: string;
  netIndex: number | null;
  /** Where the start spent its time: when it began (epoch ms) and each step, in ms from then. */
  timeline?: { beganAt: number; steps: StartStep[] };
}

/** A snapshot's disk copied: its sizes, and the manifest digest of the OCI image the sandbox runs on (null for others). */
export interface SnapshotTaken {
  sizeBytes: number;
  diskBytes: number;
  imageDigest: string | null;
}

/** A failure of start that ends the sandbox with a typed termination reason. */
export class ExecutorError extends Error {
  readonly reason: TerminationReason;
  constructor(reason: TerminationReason, message: string) {
    super(message);
    this.name = "ExecutorError";
    this.reason = reason;
  }
}

/**
 * Runs sandboxes on one host. The scheduler decides what runs where; an executor only starts, checks and stops
 * what it is told, and finds what is left of sandboxes after a crash.
 */
export interface Executor {
  readonly id: string;
  /** Why this executor cannot run sandboxes (not root, a tool missing), or null when it can. */
  unavailableReason(): string | null;
  /** What this host offers to sandboxes, overcommit included. */
  capacity(): { cpus: number; memoryMb: number };
  /** Builds the sandbox and starts its daemon; resolves once the daemon answers its health check. */
  start(spec: SandboxSpec): Promise<StartedSandbox>;
  /** Whether a sandbox started earlier (by this or a previous server process) still runs and answers. */
  isAlive(id: string, started: StartedSandbox): Promise<boolean>;
  /**
   * Whether the sandbox's daemon process still exists, answering or not: a daemon that does not answer but runs
   * is busy, not gone. Absent: a daemon that does not answer is taken as gone.
   */
  daemonRunning?(id: string): Promise<boolean>;
  /**
   * Replaces a running sandbox's egress policy in one atomic swap (connections already open are kept). Throws
   * ServiceError INVALID_REQUEST when the policy is bad or one of its hostnames does not resolve; the policy in
   * force then stays.
   */
  updateNetwork(id: string, network: SandboxNetworkAccessControl | null): Promise<void>;
  /**
   * Mounts a host directory (a file system's tree) into a running sandbox at an absolute guest path, read-only
   * when asked; a path already mounted is left as it is. Throws when the path cannot take it.
   */
  mount(id: string, mount: { source: string; path: string; readOnly: boolean }): Promise<void>;
  /** Unmounts a guest path of a running sandbox; one not mounted is fine. */
  unmount(id: string, path: string): Promise<void>;
  /** Freezes every process of a sandbox (no CPU; memory kept); resolves once all are frozen. */
  freeze(id: string): Promise<void>;
  /** Lets a frozen sandbox run again. */
  thaw(id: string): Promise<void>;
  /**
   * Copies a running sandbox's root disk into a snapshot, the sandbox frozen meanwhile (a consistent copy), and
   * lets it run again.
   */
  snapshot(id: string, snapshotId: string): Promise<SnapshotTaken>;
  /** Removes a snapshot's (or a template's) disk; one that is not there is fine. */
  removeSnapshot(snapshotId: string): Promise<void>;
  /**
   * Makes a template's root disk from a tar of a tree (laid over the image); resolves with its size on disk and,
   * for an OCI image (pulled now unless held, with the project's credentials), the manifest digest it is laid over.
   */
  buildTemplateDisk(
    templateId: string,
    tarFile: string,
    image?: { image: string | null; projectId: string },
  ): Promise<{ sizeBytes: number; imageDigest: string | null }>;
  /** Stops a sandbox and removes everything it had (processes, mounts, disk, cgroups, network). Idempotent. */
  stop(id: string): Promise<void>;
  /** Ids of sandboxes that still hold resources on this host (for cleanup after a crash). */
  leftovers(): Promise<string[]>;
}
