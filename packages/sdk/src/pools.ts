import {
  type ClaimPoolSandboxRequest,
  type CreatePoolRequest,
  type CreateSandboxResponse,
  type SandboxPool,
  sandboxRoutes,
} from "@svc/contract";
import type { Static } from "typebox";
import type { Transport } from "./transport.ts";

/** The project's warm pools: sandboxes kept started, handed out at once by a claim. */
export class Pools {
  readonly #control: Transport;
  constructor(control: Transport) {
    this.#control = control;
  }

  /**
   * Creates a pool; its warm sandboxes start in the background.
   *
   * @example
   * const { pool_id } = await client.pools.create({ warm_containers: 2, max_containers: 10 });
   */
  create(request: CreatePoolRequest): Promise<{ pool_id: string; namespace: string }> {
    return this.#control.call(sandboxRoutes.createPool, { body: request });
  }

  /**
   * Every pool of the project, with its sandboxes.
   *
   * @example
   * const pools = await client.pools.list();
   */
  async list(): Promise<SandboxPool[]> {
    return (await this.#control.call(sandboxRoutes.listPools)).pools;
  }

  /**
   * One pool, with its sandboxes (Idle: warm; Running: claimed).
   *
   * @example
   * const warm = (await client.pools.get(id)).containers.filter((c) => c.state === "Idle").length;
   */
  get(id: string): Promise<SandboxPool> {
    return this.#control.call(sandboxRoutes.getPool, { params: { pool_id: id } });
  }

  /**
   * Replaces a pool's settings (its warm sandboxes are started again with them).
   *
   * @example
   * await client.pools.update(id, { warm_containers: 4, max_containers: 10 });
   */
  update(id: string, request: CreatePoolRequest): Promise<SandboxPool> {
    return this.#control.call(sandboxRoutes.updatePool, { params: { pool_id: id }, body: request });
  }

  /**
   * Deletes a pool (refused while sandboxes claimed from it live).
   *
   * @example
   * await client.pools.delete(id);
   */
  async delete(id: string): Promise<void> {
    await this.#control.call(sandboxRoutes.deletePool, { params: { pool_id: id } });
  }

  /**
   * Claims a warm sandbox: running at once, with these mounts applied.
   *
   * @example
   * const { sandbox_id } = await client.pools.claim(id, { file_systems: [{ file_system_id: "data", mount_path: "/data" }] });
   */
  claim(id: string, request: Static<typeof ClaimPoolSandboxRequest> = {}): Promise<CreateSandboxResponse> {
    return this.#control.call(sandboxRoutes.claimPoolSandbox, { params: { pool_id: id }, body: request });
  }
}
