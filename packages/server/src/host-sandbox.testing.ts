import { type DaemonOptions, type RunningDaemon, startDaemon } from "@svc/daemon";
import type { TestServer } from "./testing.ts";

export interface HostSandbox {
  id: string;
  daemon: RunningDaemon;
}

/**
 * A sandbox of a test server whose daemon runs on this host, for tests of everything between a client and a daemon
 * (proxy, SSH gateway, SDK, CLI) without an executor: the sandbox is created through the API, a real daemon is
 * started with its forwarded-auth secret, and the row is pointed at it as the executor would after a start.
 * The caller closes `daemon`.
 */
export async function startHostSandbox(
  server: TestServer,
  options: { name?: string; exposedPorts?: number[]; daemon?: Partial<DaemonOptions> } = {},
): Promise<HostSandbox> {
  const created = await fetch(`${server.url}/sandboxes`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      ...(options.name ? { name: options.name } : {}),
      ...(options.exposedPorts ? { exposed_ports: options.exposedPorts } : {}),
    }),
  });
  if (!created.ok) throw new Error(`create failed: ${created.status} ${await created.text()}`);
  const { sandbox_id: id } = (await created.json()) as { sandbox_id: string };
  const daemon = await startDaemon({
    host: "127.0.0.1",
    port: 0,
    authSecret: server.sandboxes.secretOf(id),
    sandboxId: id,
    logLevel: "silent",
    log: () => {},
    ...options.daemon,
  } as DaemonOptions);
  await server.sandboxes.repo.transition(id, ["pending"], {
    status: "running",
    executorId: "host-test",
    containerId: "host-daemon",
    address: daemon.url,
    startedAt: Date.now(),
  });
  return { id, daemon };
}
