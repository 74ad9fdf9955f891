import type { KeyIntrospection, Project, Sandbox as SandboxRecord } from "@svc/contract";
import { platformRoutes } from "@svc/contract";
import {
  Documents,
  FileSystems,
  Keys,
  Pools,
  Projects,
  Sandboxes,
  Snapshots,
  Templates,
  Transport,
} from "@svc/sdk";

/**
 * The signed-in session: the API key (kept in sessionStorage, so for this tab only), the SDK objects built on it,
 * and optionally the admin token that key management needs. Every call goes through the SDK's transport to
 * the control API of the page's own origin; runtime calls go to each sandbox's URL through the proxy.
 */
export interface Session {
  key: string;
  baseUrl: string;
  whoami: KeyIntrospection;
  project: Project | null;
  transport: Transport;
  sandboxes: Sandboxes;
  documents: Documents;
  fileSystems: FileSystems;
  snapshots: Snapshots;
  templates: Templates;
  pools: Pools;
  /** Key management: needs the admin token (an operation of the server's admin, not of a project key). */
  admin(): { keys: Keys; projects: Projects } | null;
  /** A transport to a sandbox's daemon (its sandbox_url, through the proxy). */
  runtime(record: SandboxRecord): Transport;
}

const KEY = "svc.apiKey";
const ADMIN = "svc.adminToken";

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(ADMIN);
}

export function setAdminToken(token: string | null): void {
  if (token) sessionStorage.setItem(ADMIN, token);
  else sessionStorage.removeItem(ADMIN);
}

/** Checks the key against the server (introspection) and builds the session; throws the SDK's typed error. */
export async function signIn(key: string, baseUrl = location.origin): Promise<Session> {
  const transport = new Transport(baseUrl, () => key);
  const whoami = await transport.call(platformRoutes.introspectKey);
  sessionStorage.setItem(KEY, key);
  const runtime = (record: SandboxRecord) => {
    if (!record.sandbox_url) throw new Error(`sandbox ${record.id} has no URL (${record.status})`);
    return new Transport(record.sandbox_url.replace(/\/+$/, ""), () => key, {
      "x-svc-sandbox-id": record.id,
    });
  };
  const session: Session = {
    key,
    baseUrl,
    whoami,
    project: null,
    transport,
    sandboxes: new Sandboxes(transport, { transportFor: runtime }),
    documents: new Documents(transport),
    fileSystems: new FileSystems(transport),
    snapshots: new Snapshots(transport),
    templates: new Templates(transport),
    pools: new Pools(transport),
    runtime,
    admin() {
      const token = sessionStorage.getItem(ADMIN);
      if (!token) return null;
      const adminTransport = new Transport(baseUrl, () => token);
      return { keys: new Keys(adminTransport), projects: new Projects(adminTransport) };
    },
  };
  // The project's name, when the admin token is known (the key alone tells only its id).
  const admin = session.admin();
  if (admin)
    session.project =
      (await admin.projects.list().catch(() => [])).find((p) => p.id === whoami.projectId) ?? null;
  return session;
}
