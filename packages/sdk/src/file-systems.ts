import { type FileSystem, type FileSystemSnapshot, sandboxRoutes } from "@svc/contract";
import type { Static } from "typebox";
import type { Transport } from "./transport.ts";

type Snapshot = Static<typeof FileSystemSnapshot>;
type Data = string | Uint8Array | ReadableStream<Uint8Array>;

/** An entry of a file system's tree. */
export interface FileSystemEntry {
  path: string;
  is_dir: boolean;
  size: number;
  modified_at: number;
}

/**
 * The project's named file systems: trees that sandboxes mount (`sandbox.mount`), read and written here too,
 * with permanent snapshots. A file system is named by its name or its id.
 */
export class FileSystems {
  readonly #control: Transport;
  constructor(control: Transport) {
    this.#control = control;
  }

  /**
   * Creates an empty file system.
   *
   * @example
   * const fs = await client.fileSystems.create({ name: "datasets" });
   */
  create(request: { name: string; description?: string }): Promise<FileSystem> {
    return this.#control.call(sandboxRoutes.createFileSystem, { body: request });
  }

  /**
   * Every file system of the project.
   *
   * @example
   * for (const fs of await client.fileSystems.list()) console.log(fs.name);
   */
  async list(): Promise<FileSystem[]> {
    return (await this.#control.call(sandboxRoutes.listFileSystems)).file_systems;
  }

  /**
   * Deletes a file system and its snapshots (refused while a live sandbox mounts it).
   *
   * @example
   * await client.fileSystems.delete("datasets");
   */
  async delete(fileSystem: string): Promise<void> {
    await this.#control.call(sandboxRoutes.deleteFileSystem, { params: { file_system: fileSystem } });
  }

  /**
   * Reads a file of the live tree.
   *
   * @example
   * const text = new TextDecoder().decode(await client.fileSystems.read("datasets", "README.md"));
   */
  async read(fileSystem: string, path: string): Promise<Uint8Array> {
    const response = await this.#control.send(sandboxRoutes.readFileSystemFile, {
      params: { file_system: fileSystem },
      query: { path },
    });
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * Writes a file of the live tree (parents made); sandboxes that mount it see it at once.
   *
   * @example
   * await client.fileSystems.write("datasets", "config/settings.json", JSON.stringify({ a: 1 }));
   */
  async write(fileSystem: string, path: string, data: Data): Promise<void> {
    await this.#control.call(sandboxRoutes.writeFileSystemFile, {
      params: { file_system: fileSystem },
      query: { path },
      rawBody: data as never,
    });
  }

  /**
   * Deletes a file (or an empty directory) of the live tree.
   *
   * @example
   * await client.fileSystems.deleteFile("datasets", "old.csv");
   */
  async deleteFile(fileSystem: string, path: string): Promise<void> {
    await this.#control.call(sandboxRoutes.deleteFileSystemFile, {
      params: { file_system: fileSystem },
      query: { path },
    });
  }

  /**
   * Every entry of the live tree (symbolic links listed, not followed).
   *
   * @example
   * const files = (await client.fileSystems.tree("datasets")).filter((e) => !e.is_dir);
   */
  async tree(fileSystem: string): Promise<FileSystemEntry[]> {
    return (await this.#control.call(sandboxRoutes.fileSystemTree, { params: { file_system: fileSystem } }))
      .entries;
  }

  /**
   * Replaces the live tree with a tar archive (plain or gzip); with a message, also takes a permanent snapshot,
   * whose id comes back.
   *
   * @example
   * const { snapshot_id } = await client.fileSystems.push("datasets", tarBytes, { message: "v1" });
   */
  async push(
    fileSystem: string,
    tar: Data,
    options: { message?: string } = {},
  ): Promise<{ snapshot_id: string | null }> {
    const result = await this.#control.call(sandboxRoutes.pushFileSystem, {
      params: { file_system: fileSystem },
      query: options.message ? { message: options.message } : {},
      rawBody: tar as never,
    });
    return { snapshot_id: result.snapshot_id ?? null };
  }

  /**
   * Takes a permanent snapshot of the live tree: a mount pinned to it (read-only) never changes.
   *
   * @example
   * const { snapshot_id } = await client.fileSystems.snapshot("datasets", { message: "before cleanup" });
   */
  snapshot(fileSystem: string, options: { message?: string } = {}): Promise<Snapshot> {
    return this.#control.call(sandboxRoutes.snapshotFileSystem, {
      params: { file_system: fileSystem },
      body: options,
    });
  }

  /**
   * The permanent snapshots of a file system, oldest first.
   *
   * @example
   * const ids = (await client.fileSystems.snapshots("datasets")).map((s) => s.snapshot_id);
   */
  async snapshots(fileSystem: string): Promise<Snapshot[]> {
    return (
      await this.#control.call(sandboxRoutes.listFileSystemSnapshots, { params: { file_system: fileSystem } })
    ).snapshots;
  }
}
