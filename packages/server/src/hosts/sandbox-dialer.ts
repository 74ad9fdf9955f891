import type net from "node:net";
import type { SandboxRow } from "../sandboxes/repository.ts";

/*
 * How code on one host reaches a sandbox that may run on another: the interface relay.ts implements and the
 * proxy, the SSH gateway, logs and the sandbox service use (daemon-link.ts among them, which relay.ts imports).
 */

/** Operations another host asks of the executor host that runs a sandbox. */
export type ControlOp = "network" | "mounts" | "unmount" | "suspend" | "resume" | "snapshot";

/** Opens streams to sandboxes that run on other hosts, through their executors' relays. */
export interface SandboxDialer {
  /** Whether the sandbox runs on another host's executor (then `connect` goes through that host's relay). */
  isRemote(row: SandboxRow): boolean;
  /** A connected stream to `port` of the sandbox, through its executor's relay. */
  connect(row: SandboxRow, port: number): Promise<net.Socket>;
  /** Runs an operation on the executor host of the sandbox; its ServiceError is thrown here as it was there. */
  control(row: SandboxRow, op: ControlOp, args?: Record<string, unknown>): Promise<unknown>;
}
