import {
  BuildEventName,
  type BuildLogEvent,
  buildRoutes,
  readSseStream,
  type SandboxNetworkAccessControl,
  sandboxRoutes,
  type Template,
  type TemplateBuild,
} from "@svc/contract";
import type { Transport } from "./transport.ts";

export interface TemplateBuildOptions {
  /** The Dockerfile's path inside the context; default `Dockerfile`. */
  dockerfile?: string;
  /** Values of the Dockerfile's `ARG`s. */
  buildArgs?: Record<string, string>;
  /** The egress policy `RUN` steps run under. */
  network?: SandboxNetworkAccessControl;
  /** Each line of the build's log as it comes (step headers, the commands' output). */
  onLog?: (event: BuildLogEvent) => void;
  signal?: AbortSignal;
}

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
   * Builds a template from a Dockerfile and its context (a tar, plain or gzip, holding the Dockerfile): `RUN`
   * steps run in a build sandbox, each step is cached. Resolves with the finished build (`status` succeeded or
   * failed); its log lines go to `onLog` as they come.
   *
   * @example
   * const build = await client.templates.build("my-app", readFileSync("context.tar"), {
   *   buildArgs: { VERSION: "1.2" },
   *   onLog: (event) => console.log(event.line),
   * });
   * if (build.status !== "succeeded") throw new Error(build.error ?? "build failed");
   */
  async build(name: string, context: Uint8Array, options: TemplateBuildOptions = {}): Promise<TemplateBuild> {
    const network = options.network ?? {};
    const started = await this.#control.call(buildRoutes.createTemplateBuild, {
      params: { template: name },
      query: {
        dockerfile: options.dockerfile,
        build_arg: options.buildArgs
          ? Object.entries(options.buildArgs).map(([k, v]) => `${k}=${v}`)
          : undefined,
        allow_internet_access: network.allow_internet_access,
        allow_out: network.allow_out,
        deny_out: network.deny_out,
      },
      rawBody: context as never,
      signal: options.signal,
    });
    const response = await this.#control.send(buildRoutes.followTemplateBuild, {
      params: { build_id: started.build_id },
      signal: options.signal,
    });
    for await (const message of readSseStream(response.body as unknown as AsyncIterable<Uint8Array>)) {
      if (message.event === BuildEventName.log) options.onLog?.(JSON.parse(message.data) as BuildLogEvent);
      if (message.event === BuildEventName.end) return JSON.parse(message.data) as TemplateBuild;
    }
    // The stream broke before the end: wait for the record.
    for (;;) {
      const build = await this.getBuild(started.build_id);
      if (build.status === "succeeded" || build.status === "failed") return build;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  /**
   * A template build by id.
   *
   * @example
   * const build = await client.templates.getBuild("bld_...");
   */
  getBuild(buildId: string): Promise<TemplateBuild> {
    return this.#control.call(buildRoutes.getTemplateBuild, { params: { build_id: buildId } });
  }

  /**
   * The project's template builds this server ran since it started, newest first.
   *
   * @example
   * for (const b of await client.templates.listBuilds()) console.log(b.template_name, b.status);
   */
  async listBuilds(): Promise<TemplateBuild[]> {
    return (await this.#control.call(buildRoutes.listTemplateBuilds)).builds;
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
