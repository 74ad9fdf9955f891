import {
  type ApiKeyInfo,
  type CreatedApiKey,
  type KeyIntrospection,
  type Project,
  platformRoutes,
  type Sandbox as SandboxRecord,
} from "@svc/contract";
import { resolveAdminToken, resolveApiKey, resolveBaseUrl } from "./credentials.ts";
import { Documents } from "./documents.ts";
import { ClientError } from "./errors.ts";
import { FileSystems } from "./file-systems.ts";
import { Images, RegistryCredentials } from "./images.ts";
import { Pools } from "./pools.ts";
import { Sandboxes } from "./sandbox.ts";
import { Snapshots } from "./snapshots.ts";
import { Templates } from "./templates.ts";
import { Transport } from "./transport.ts";

export interface ClientOptions {
  /** A project API key, `svc_apiKey_...`; default SERVICE_API_KEY, then the local server's key file. */
  apiKey?: string;
  /** Control API URL; default SVC_API_URL, then http://localhost:8900. */
  baseUrl?: string;
  /** Admin token for key and project management; default SVC_ADMIN_TOKEN, then the local server's file. */
  adminToken?: string;
  /**
   * The sandbox proxy to send runtime calls to, naming the sandbox in a header; default SVC_PROXY_URL, else
   * each sandbox's own sandbox_url.
   */
  proxyUrl?: string;
}

/**
 * The client of the service's control API.
 *
 * @example
 * const client = new Client({ apiKey: process.env.SERVICE_API_KEY });
 * const me = await client.whoami();
 * console.log(me.projectId);
 */
export class Client {
  readonly baseUrl: string;
  /** Calls authenticated with the API key. */
  readonly transport: Transport;
  /** Calls authenticated with the admin token. */
  readonly adminTransport: Transport;
  /** API keys of the server's projects (admin). */
  readonly keys: Keys;
  /** Projects of the server (admin). */
  readonly projects: Projects;
  /** The project's sandboxes and their runtime API. */
  readonly sandboxes: Sandboxes;
  /** The project's documents: files, parse jobs, datasets, webhooks. */
  readonly documents: Documents;
  /** The project's named file systems, which sandboxes mount. */
  readonly fileSystems: FileSystems;
  /** Sandbox snapshots, templates made from them or from trees, and warm pools. */
  readonly snapshots: Snapshots;
  readonly templates: Templates;
  readonly pools: Pools;
  /** Images uploaded as archives, which `image` names. */
  readonly images: Images;
  /** Credentials the project's OCI image pulls use, per registry host. */
  readonly registries: RegistryCredentials;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = resolveBaseUrl(options.baseUrl);
    const apiKey = resolveApiKey(options.apiKey);
    this.transport = new Transport(this.baseUrl, () => apiKey);
    this.adminTransport = new Transport(this.baseUrl, () => resolveAdminToken(options.adminToken));
    this.keys = new Keys(this.adminTransport);
    this.projects = new Projects(this.adminTransport);
    this.documents = new Documents(this.transport);
    this.fileSystems = new FileSystems(this.transport);
    this.snapshots = new Snapshots(this.transport);
    this.templates = new Templates(this.transport);
    this.pools = new Pools(this.transport);
    this.images = new Images(this.transport);
    this.registries = new RegistryCredentials(this.transport);
    const proxyUrl = options.proxyUrl || process.env.SVC_PROXY_URL;
    this.sandboxes = new Sandboxes(this.transport, {
      transportFor: (record) =>
        new Transport(runtimeBase(record, proxyUrl), () => apiKey, { [SANDBOX_ID_HEADER]: record.id }),
    });
  }

  /**
   * Describes the API key this client uses: its id, organization and project.
   *
   * @example
   * const { id, projectId } = await new Client().whoami();
   */
  whoami(): Promise<KeyIntrospection> {
    return this.transport.call(platformRoutes.introspectKey);
  }
}

/** The header naming the sandbox when the proxy's host name cannot. */
const SANDBOX_ID_HEADER = "x-svc-sandbox-id";

/**
 * Where runtime calls of a sandbox go: the configured proxy, else its sandbox_url as the server gives it (path form
 * `http://127.0.0.1:9443/sandboxes/<id>` on a local install, `https://<id>.<domain>` on a real one).
 */
function runtimeBase(record: SandboxRecord, proxyUrl: string | undefined): string {
  if (proxyUrl) return proxyUrl.replace(/\/+$/, "");
  if (!record.sandbox_url)
    throw new ClientError(`sandbox ${record.id} has no URL (${record.status})`, "SANDBOX_NOT_RUNNING");
  return record.sandbox_url.replace(/\/+$/, "");
}

/** API key management: an admin operation of the server. */
export class Keys {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a key in a project (default `default`); the key text is in the result, and only there.
   *
   * @example
   * const { key, id } = await client.keys.create({ project: "default", name: "ci" });
   */
  create(options: { project?: string; name?: string } = {}): Promise<CreatedApiKey> {
    return this.#transport.call(platformRoutes.createKey, { body: options });
  }

  /**
   * Lists keys (never their text), optionally of one project.
   *
   * @example
   * for (const key of await client.keys.list()) console.log(key.id, key.prefix);
   */
  async list(options: { project?: string } = {}): Promise<ApiKeyInfo[]> {
    return (await this.#transport.call(platformRoutes.listKeys, { query: options })).keys;
  }

  /**
   * Deletes a key; it stops working at once.
   *
   * @example
   * await client.keys.delete("key_...");
   */
  async delete(id: string): Promise<void> {
    await this.#transport.call(platformRoutes.deleteKey, { params: { key_id: id } });
  }
}

/** Projects of the server: an admin operation. */
export class Projects {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a project in the default organization.
   *
   * @example
   * const project = await client.projects.create("staging");
   */
  create(name: string): Promise<Project> {
    return this.#transport.call(platformRoutes.createProject, { body: { name } });
  }

  /**
   * Lists projects.
   *
   * @example
   * const projects = await client.projects.list();
   */
  async list(): Promise<Project[]> {
    return (await this.#transport.call(platformRoutes.listProjects)).projects;
  }
}
