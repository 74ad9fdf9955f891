import { sandboxRoutes, type Template } from "@svc/contract";
import type { Transport } from "./transport.ts";

/** The project's templates: named root disks that sandboxes start from (`template_id` at create). */
export class Templates {
  readonly #control: Transport;
  constructor(control: Transport) {
    this.#control = control;
  }

  /**
   * Makes a template from a completed snapshot.
   *
   * @example
   * await client.templates.fromSnapshot("python-ready", snapshot.snapshot_id);
   */
  fromSnapshot(name: string, snapshotId: string): Promise<Template> {
    return this.#control.call(sandboxRoutes.createTemplate, { body: { name, snapshot_id: snapshotId } });
  }

  /**
   * Makes a template from a tar (plain or gzip) of a tree, laid over the default image or `options.image` (an
   * OCI reference or an uploaded image's name).
   *
   * @example
   * await client.templates.fromTree("my-app", readFileSync("app.tar.gz"), { image: "python:3.12-slim" });
   */
  fromTree(
    name: string,
    tar: Uint8Array | ReadableStream<Uint8Array>,
    options: { image?: string } = {},
  ): Promise<Template> {
    return this.#control.call(sandboxRoutes.createTemplateFromTree, {
      params: { template: name },
      ...(options.image !== undefined ? { query: { image: options.image } } : {}),
      rawBody: tar as never,
    });
  }

  /**
   * Every template of the project.
   *
   * @example
   * for (const t of await client.templates.list()) console.log(t.name, t.source);
   */
  async list(): Promise<Template[]> {
    return (await this.#control.call(sandboxRoutes.listTemplates)).templates;
  }

  /**
   * A template by name or id.
   *
   * @example
   * const template = await client.templates.get("my-app");
   */
  get(nameOrId: string): Promise<Template> {
    return this.#control.call(sandboxRoutes.getTemplate, { params: { template: nameOrId } });
  }

  /**
   * Deletes a template.
   *
   * @example
   * await client.templates.delete("my-app");
   */
  async delete(nameOrId: string): Promise<void> {
    await this.#control.call(sandboxRoutes.deleteTemplate, { params: { template: nameOrId } });
  }
}
