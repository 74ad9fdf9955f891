import { imageRoutes, type RegistryCredential, type SandboxImage } from "@svc/contract";
import type { Transport } from "./transport.ts";

/** The project's OCI registry credentials: pulls of its sandboxes' images from that host use them. */
export class RegistryCredentials {
  readonly #control: Transport;
  constructor(control: Transport) {
    this.#control = control;
  }

  /**
   * Sets the credentials for a registry host (replacing any); the password is stored encrypted, never returned.
   *
   * @example
   * await client.registries.put("ghcr.io", { username: "me", password: process.env.GHCR_TOKEN! });
   */
  put(registry: string, credentials: { username: string; password: string }): Promise<RegistryCredential> {
    return this.#control.call(imageRoutes.putRegistryCredential, { params: { registry }, body: credentials });
  }

  /**
   * The project's registry hosts with their usernames.
   *
   * @example
   * for (const c of await client.registries.list()) console.log(c.registry, c.username);
   */
  async list(): Promise<RegistryCredential[]> {
    return (await this.#control.call(imageRoutes.listRegistryCredentials)).registry_credentials;
  }

  /**
   * Deletes the credentials for a registry host.
   *
   * @example
   * await client.registries.delete("ghcr.io");
   */
  async delete(registry: string): Promise<void> {
    await this.#control.call(imageRoutes.deleteRegistryCredential, { params: { registry } });
  }
}

/** Images uploaded as `docker save` or OCI archives; sandboxes, pools and templates name them in `image`. */
export class Images {
  readonly #control: Transport;
  constructor(control: Transport) {
    this.#control = control;
  }

  /**
   * Uploads an image archive (`docker save` output or an OCI archive) under a name.
   *
   * @example
   * await client.images.upload("my-app", readFileSync("my-app.tar"));
   * await client.sandboxes.create({ image: "my-app" });
   */
  upload(name: string, archive: Uint8Array | ReadableStream<Uint8Array>): Promise<SandboxImage> {
    return this.#control.call(imageRoutes.uploadImage, { params: { name }, rawBody: archive as never });
  }

  /**
   * Every uploaded image of the project.
   *
   * @example
   * for (const image of await client.images.list()) console.log(image.name, image.digest);
   */
  async list(): Promise<SandboxImage[]> {
    return (await this.#control.call(imageRoutes.listImages)).images;
  }

  /**
   * An uploaded image by name.
   *
   * @example
   * const image = await client.images.get("my-app");
   */
  get(name: string): Promise<SandboxImage> {
    return this.#control.call(imageRoutes.getImage, { params: { name } });
  }

  /**
   * Deletes an uploaded image (sandboxes running on it keep it).
   *
   * @example
   * await client.images.delete("my-app");
   */
  async delete(name: string): Promise<void> {
    await this.#control.call(imageRoutes.deleteImage, { params: { name } });
  }
}
