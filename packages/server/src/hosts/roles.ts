import os from "node:os";

/**
 * The roles of `svc server`. One process runs all of them by default (one host, SQLite); with a PostgreSQL URL
 * each host runs the ones it is given and the database coordinates them.
 * - api: the control API (sandboxes, files, documents);
 * - proxy: the sandbox proxy and the SSH gateway;
 * - scheduler: places pending sandboxes on executors, enforces timeouts, ends the sandboxes of lost executors;
 * - executor: runs this host's sandboxes, with its heartbeat and the host relay other hosts' proxies reach them by;
 * - worker: parse workers and webhook deliveries.
 */
export const ALL_ROLES = ["api", "proxy", "scheduler", "executor", "worker"] as const;

export type Role = (typeof ALL_ROLES)[number];

/** The options of config.ts that say which roles this host runs and how other hosts reach it. */
export interface HostOptions {
  /** Comma-separated roles. */
  roles: string;
  hostId: string | null;
  databaseUrl: string | null;
  relayHost: string;
  relayAdvertise: string | null;
}

/** The set of roles named by the `roles` option (checked by checkRoles at load). */
export function rolesOf(config: Pick<HostOptions, "roles">): Set<Role> {
  return new Set(config.roles.split(",") as Role[]);
}

/** This host's name among the hosts of one database. */
export function hostIdOf(config: Pick<HostOptions, "hostId">): string {
  return config.hostId ?? os.hostname();
}

/** Whether this process is one host of several: a PostgreSQL store coordinates it with the others. */
export function isClustered(config: Pick<HostOptions, "databaseUrl">): boolean {
  return config.databaseUrl !== null;
}

/** Why a combination of options cannot run, or null. */
export function checkRoles(
  config: Pick<HostOptions, "roles" | "databaseUrl" | "relayHost" | "relayAdvertise">,
): string | null {
  const unknown = config.roles.split(",").filter((role) => !(ALL_ROLES as readonly string[]).includes(role));
  if (unknown.length > 0) {
    return `roles: unknown role ${unknown.map((role) => JSON.stringify(role)).join(", ")} in ${JSON.stringify(config.roles)} (the roles are ${ALL_ROLES.join(", ")})`;
  }
  const roles = rolesOf(config);
  if (roles.size < ALL_ROLES.length && !config.databaseUrl) {
    return `roles ${config.roles} leave the other roles to other hosts, which needs a shared PostgreSQL store: set databaseUrl (SVC_DATABASE_URL or --database-url)`;
  }
  const wildcard = config.relayHost === "0.0.0.0" || config.relayHost === "::";
  if (config.databaseUrl && roles.has("executor") && wildcard && !config.relayAdvertise) {
    return `relayHost ${config.relayHost} is not an address other hosts can reach: set relayAdvertise (SVC_RELAY_ADVERTISE or --relay-advertise)`;
  }
  return null;
}
