import type { CreateSandboxResponse, Sandbox, SandboxStartTimeline } from "@svc/contract";
import { SANDBOX_PATH_PREFIX } from "../proxy/target.ts";
import type { SandboxRow } from "./repository.ts";

/** Where sandboxes are reached from outside. */
export interface IngressConfig {
  proxyDomain: string;
  /** Address the proxy listens on: a loopback literal is what local sandbox URLs name. */
  proxyHost: string;
  proxyPort: number;
  scheme: "http" | "https";
  /** Base URL of path-form sandbox URLs (`<base>/sandboxes/<id>`) when configured (proxyPublicUrl). */
  publicUrl: string | null;
}

function portSuffix(ingress: IngressConfig): string {
  const standard =
    (ingress.scheme === "https" && ingress.proxyPort === 443) ||
    (ingress.scheme === "http" && ingress.proxyPort === 80);
  return standard ? "" : `:${ingress.proxyPort}`;
}

/** `localhost` and `*.localhost`: names browsers and curl resolve themselves, but glibc (and so most clients) not. */
function isLocalhostDomain(domain: string): boolean {
  const name = domain.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * The base of path-form sandbox URLs, or null when sandboxes are reached by host name. A `*.localhost` proxy
 * domain (the local default) does not resolve through glibc, so its sandbox URLs name the proxy's own address
 * instead: `http://127.0.0.1:9443/sandboxes/<id>` works in every client with no DNS set-up.
 */
function pathFormBase(ingress: IngressConfig): string | null {
  if (ingress.publicUrl) return ingress.publicUrl.replace(/\/+$/, "");
  if (!isLocalhostDomain(ingress.proxyDomain)) return null;
  const listening = ingress.proxyHost;
  const host = /^127\.\d+\.\d+\.\d+$/.test(listening) ? listening : "localhost";
  return `${ingress.scheme}://${host}${portSuffix(ingress)}`;
}

/** The canonical base of sandbox host names: `<scheme>://<domain>[:port]` (user ports are `<port>-<id>.` on it). */
export function ingressEndpoint(ingress: IngressConfig): string {
  return `${ingress.scheme}://${ingress.proxyDomain}${portSuffix(ingress)}`;
}

/** The sandbox's management URL: `<base>/sandboxes/<id>` (path form) or `<scheme>://<id>.<domain>[:port]`. */
export function sandboxUrl(row: SandboxRow, ingress: IngressConfig): string {
  const base = pathFormBase(ingress);
  if (base) return `${base}${SANDBOX_PATH_PREFIX}${row.id}`;
  return `${ingress.scheme}://${row.id}.${ingress.proxyDomain}${portSuffix(ingress)}`;
}

/** The API's Sandbox record of a stored row; `namespace` is the project's name. */
export function toSandbox(row: SandboxRow, namespace: string, ingress: IngressConfig): Sandbox {
  const live = row.status !== "terminated";
  return {
    id: row.id,
    namespace,
    image: row.image,
    status: row.status,
    pending_reason: row.status === "pending" ? row.pendingReason : null,
    outcome: row.outcome,
    termination_reason: row.terminationReason,
    error_details: row.errorDetails,
    created_at: row.createdAt,
    terminated_at: live ? null : row.endedAt,
    container_id: row.containerId,
    executor_id: row.executorId,
    resources: {
      cpus: row.cpus,
      memory_mb: row.memoryMb,
      disk_mb: row.diskMb,
      ephemeral_disk_mb: row.diskMb,
    },
    timeout_secs: row.timeoutSecs,
    entrypoint: row.entrypoint,
    ingress_endpoint: live ? ingressEndpoint(ingress) : null,
    sandbox_url: live ? sandboxUrl(row, ingress) : null,
    pool_id: row.poolId,
    network_policy: row.network,
    network: row.network,
    allow_unauthenticated_access: row.allowUnauthenticatedAccess,
    exposed_ports: row.exposedPorts,
    template_id: row.templateId,
    name: row.name,
    file_systems: row.fileSystems,
  };
}

export function toCreateResponse(row: SandboxRow, ingress: IngressConfig): CreateSandboxResponse {
  return {
    sandbox_id: row.id,
    status: row.status,
    pending_reason: row.pendingReason,
    sandbox_url: sandboxUrl(row, ingress),
    ingress_endpoint: ingressEndpoint(ingress),
    name: row.name,
  };
}

/** The API's start timeline of a stored row: the wait for an executor, then the last start's steps. */
export function toStartTimeline(row: SandboxRow): SandboxStartTimeline {
  return {
    sandbox_id: row.id,
    status: row.status,
    created_at: row.createdAt,
    start_began_at: row.startTimeline?.beganAt ?? null,
    running_at: row.startedAt,
    steps: row.startTimeline?.steps ?? [],
  };
}
