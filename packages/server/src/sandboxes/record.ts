import type { CreateSandboxResponse, Sandbox } from "@svc/contract";
import type { SandboxRow } from "./repository.ts";

/** Where a sandbox is reached from outside: `http://<id>.<domain>:<port>`. */
export interface IngressConfig {
  proxyDomain: string;
  proxyPort: number;
  scheme: "http" | "https";
}

export function sandboxUrl(row: SandboxRow, ingress: IngressConfig): string {
  const port =
    (ingress.scheme === "https" && ingress.proxyPort === 443) ||
    (ingress.scheme === "http" && ingress.proxyPort === 80)
      ? ""
      : `:${ingress.proxyPort}`;
  return `${ingress.scheme}://${row.id}.${ingress.proxyDomain}${port}`;
}

/** The API's Sandbox record of a stored row; `namespace` is the project's name. */
export function toSandbox(row: SandboxRow, namespace: string, ingress: IngressConfig): Sandbox {
  const url = row.status === "terminated" ? null : sandboxUrl(row, ingress);
  return {
    id: row.id,
    sandbox_id: row.id,
    namespace,
    image: row.image,
    status: row.status,
    pending_reason: row.status === "pending" ? row.pendingReason : null,
    outcome: row.outcome,
    termination_reason: row.terminationReason,
    error_details: row.errorDetails,
    created_at: row.createdAt,
    container_id: row.containerId,
    executor_id: row.executorId,
    resources: { cpus: row.cpus, memory_mb: row.memoryMb, disk_mb: row.diskMb },
    timeout_secs: row.timeoutSecs,
    ingress_endpoint: url,
    sandbox_url: url,
    pool_id: row.poolId,
    network_policy: row.network,
    allow_unauthenticated_access: row.allowUnauthenticatedAccess,
    exposed_ports: row.exposedPorts,
    template_id: row.templateId,
    name: row.name,
    file_systems: row.fileSystems,
  };
}

export function toCreateResponse(row: SandboxRow, ingress: IngressConfig): CreateSandboxResponse {
  const url = sandboxUrl(row, ingress);
  return {
    sandbox_id: row.id,
    status: row.status,
    pending_reason: row.pendingReason,
    sandbox_url: url,
    ingress_endpoint: url,
    name: row.name,
  };
}
