/**
 * # oci-images
 *
 * Root filesystems made from OCI images: pulled from a registry by reference with Debian's `skopeo`, or read
 * from an uploaded `docker save` / OCI archive, and unpacked with `umoci` (whiteouts, hard links, xattrs).
 *
 * On disk, under the store's directory:
 * - `layout/`: one OCI image layout holding every image pulled. Blobs are named by digest, so a layer two images
 *   share is fetched and stored once (skopeo skips blobs the layout has). Each image is tagged there by the hex
 *   of its manifest digest.
 * - `rootfs/<manifest hex>/rootfs` and `image.json` (reference, digest, config, size): the unpacked tree,
 *   renamed into place only when complete, so a killed unpack never leaves a tree that looks whole. The
 *   mtime of `image.json` is when the tree was last served; `sweep` removes trees unused for a grace period.
 *
 * Safety: device nodes are removed after unpacking (a sandbox gets its own /dev); files keep the image's owners
 * and modes, setuid included, since inside a sandbox they give no more than the sandbox's own root. Registries
 * are reached only at public addresses unless the operator lists them (`allowedRegistries`, for a registry on
 * the host or the private network); credentials reach skopeo in a mode-0600 auth file removed after use, never
 * on a command line or in a message. One lock (flock) per store serialises writers across processes.
 */
import { createHash, randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { nonPublicRange } from "../../documents/url-fetch.ts";
import { acquireFileLock } from "./file-lock.ts";
import { HostCommandError, runHostCommand } from "./host-command.ts";
import { type ImageReference, parseImageReference, registryHost } from "./image-reference.ts";

/** What the image asks of the processes it runs (its config's `Env`, `WorkingDir`, `User`, `Entrypoint`, `Cmd`). */
export interface OciImageConfig {
  env: string[];
  workingDir: string | null;
  user: string | null;
  entrypoint: string[] | null;
  cmd: string[] | null;
}

export interface OciImage {
  /** Where the image came from: a canonical reference, or `archive:<name>`. */
  source: string;
  /** The manifest's digest, `sha256:<hex>`. */
  digest: string;
  /** The unpacked tree, read-only for sandboxes. */
  rootfs: string;
  config: OciImageConfig;
  sizeBytes: number;
}

/** What a sweep keeps whatever its age: manifest digests, and canonical references whose pulled digest counts. */
export interface ImagesInUse {
  digests: ReadonlySet<string>;
  references: ReadonlySet<string>;
}

export interface RegistryCredentials {
  username: string;
  password: string;
}

export type OciImageErrorKind = "not_found" | "unauthorized" | "unreachable" | "blocked_address" | "invalid";

/** A pull or import that failed, with a kind the caller maps to a termination reason or an error code. */
export class OciImageError extends Error {
  readonly kind: OciImageErrorKind;
  constructor(kind: OciImageErrorKind, message: string) {
    super(message);
    this.name = "OciImageError";
    this.kind = kind;
  }
}

export interface OciImageStoreOptions {
  /**
   * Registries (`host` or `host:port`) that may sit at a non-public address, reached over plain HTTP or
   * without TLS verification: a registry on the host or the operator's network.
   */
  allowedRegistries?: readonly string[];
  /** Resolves a registry's host; tests replace it. */
  resolve?: (host: string) => Promise<string[]>;
}

export interface PullOptions {
  credentials?: RegistryCredentials;
  /**
   * Who pulls (a project): the store then serves a reference from what it holds only when this scope pulled
   * that same reference before (a tag other than `latest`, or a digest), so one project never gets another's
   * private image without the registry being asked with its own credentials. Unset: any held digest is served.
   */
  scope?: string;
  /** Each line skopeo prints (blobs copied), for a pending sandbox's reason. */
  onProgress?: (line: string) => void;
}

export class OciImageStore {
  readonly #dir: string;
  readonly #allowed: ReadonlySet<string>;
  readonly #resolve: (host: string) => Promise<string[]>;

  constructor(dir: string, options: OciImageStoreOptions = {}) {
    this.#dir = dir;
    this.#allowed = new Set(options.allowedRegistries ?? []);
    this.#resolve =
      options.resolve ?? (async (host) => (await lookup(host, { all: true })).map((a) => a.address));
  }

  get #layout(): string {
    return join(this.#dir, "layout");
  }

  /** The image a reference names, pulled and unpacked unless the store has it (a pinned digest it has is not asked for again). */
  async pull(reference: ImageReference, options: PullOptions = {}): Promise<OciImage> {
    const held = await this.#held(reference, options.scope);
    if (held) return this.#served(held);
    const allowed = this.#allowed.has(reference.registry);
    if (!allowed) await this.#checkPublic(reference.registry);
    const transport = `docker://${reference.canonical}`;
    const tlsFlag = allowed ? ["--src-tls-verify=false"] : [];
    return this.#withLock(async () => {
      const authDir = join(this.#dir, `.auth-${randomBytes(6).toString("hex")}`);
      const authArgs: string[] = [];
      if (options.credentials) {
        await mkdir(authDir, { recursive: true, mode: 0o700 });
        const auth = Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString(
          "base64",
        );
        const file = join(authDir, "auth.json");
        await writeFile(file, JSON.stringify({ auths: { [reference.registry]: { auth } } }), { mode: 0o600 });
        authArgs.push(`--src-authfile=${file}`);
      } else {
        authArgs.push("--src-no-creds");
      }
      try {
        const image = await this.#copyIn(
          transport,
          [...tlsFlag, ...authArgs],
          reference.canonical,
          options.onProgress,
        );
        if (options.scope !== undefined) {
          await this.#remember(reference, options.scope, image.digest);
          // The scope may serve that digest by name too (a template pinned to what this pull got) without
          // asking the registry again: its credentials just reached it.
          if (!reference.digest) {
            const pinned = parseImageReference(
              `${reference.registry}/${reference.repository}@${image.digest}`,
            );
            await this.#remember(pinned, options.scope, image.digest);
          }
        }
        return image;
      } finally {
        await rm(authDir, { recursive: true, force: true });
      }
    });
  }

  /**
   * What the store may serve for a reference without asking the registry: with a scope, the digest that scope's
   * last pull of the same reference got (never for `latest`, which is asked for each time); without one, a
   * pinned digest the store holds.
   */
  async #held(reference: ImageReference, scope: string | undefined): Promise<OciImage | null> {
    if (scope === undefined) return reference.digest ? this.#cached(reference.digest) : null;
    if (!reference.digest && reference.tag === "latest") return null;
    try {
      const { digest } = JSON.parse(await readFile(this.#refFile(reference, scope), "utf8")) as {
        digest: string;
      };
      return await this.#cached(digest);
    } catch {
      return null;
    }
  }

  async #remember(reference: ImageReference, scope: string, digest: string): Promise<void> {
    const file = this.#refFile(reference, scope);
    await mkdir(join(this.#dir, "refs"), { recursive: true });
    await writeFile(`${file}.tmp`, JSON.stringify({ reference: reference.canonical, digest }));
    await rename(`${file}.tmp`, file);
  }

  /** A scope's record of a reference, named by a hash of both (any text is a safe file name then). */
  #refFile(reference: ImageReference, scope: string): string {
    const key = createHash("sha256").update(`${scope}\0${reference.canonical}`).digest("hex");
    return join(this.#dir, "refs", `${key}.json`);
  }

  /** The image of a manifest digest if the store holds it (an uploaded archive's, or one pulled before). */
  async byDigest(digest: string): Promise<OciImage | null> {
    const image = await this.#cached(digest);
    return image && this.#served(image);
  }

  /** Records that an image was served now (the mtime of its image.json): a sweep keeps it for the grace period. */
  async #served(image: OciImage): Promise<OciImage> {
    const now = new Date();
    await utimes(join(dirname(image.rootfs), "image.json"), now, now).catch(() => undefined);
    return image;
  }

  /**
   * Removes unpacked trees that no sandbox of this host has mounted, that `keep` does not name (by digest, or by
   * a reference some project's pull of it recorded) and that were not served within `graceMs`; then their tags
   * in the layout, the records of pulls that got them, and the blobs no other image references (`umoci gc`). A
   * tree is renamed aside before it is removed, so a killed sweep never leaves a tree that looks whole. Answers
   * the digests removed.
   */
  async sweep(keep: ImagesInUse, graceMs: number): Promise<string[]> {
    const trees = join(this.#dir, "rootfs");
    if (!existsSync(trees)) return [];
    return this.#withLock(async () => {
      for (const entry of await readdir(this.#dir)) {
        if (entry.startsWith(".trash-")) await rm(join(this.#dir, entry), { recursive: true, force: true });
      }
      const pulls = await this.#pullRecords();
      const kept = new Set(keep.digests);
      for (const pull of pulls) if (keep.references.has(pull.reference)) kept.add(pull.digest);
      // An overlay names its lower tree in its mount options: a mounted tree is in use whatever its age.
      const mounts = await readFile("/proc/self/mountinfo", "utf8");
      const removed: string[] = [];
      for (const hex of await readdir(trees)) {
        const tree = join(trees, hex);
        if (kept.has(`sha256:${hex}`) || mounts.includes(join(tree, "rootfs"))) continue;
        const served = (await stat(join(tree, "image.json")).catch(() => null))?.mtimeMs ?? 0;
        if (Date.now() - served < graceMs) continue;
        const trash = join(this.#dir, `.trash-${hex}`);
        await rename(tree, trash);
        await rm(trash, { recursive: true, force: true });
        removed.push(`sha256:${hex}`);
      }
      if (removed.length > 0 && existsSync(join(this.#layout, "index.json"))) {
        const indexPath = join(this.#layout, "index.json");
        const index = JSON.parse(await readFile(indexPath, "utf8")) as OciIndex;
        const gone = new Set(removed.map((digest) => digest.replace(/^sha256:/, "")));
        index.manifests = index.manifests.filter((m) => !gone.has(m.annotations?.[REF_NAME] ?? ""));
        await writeFile(`${indexPath}.tmp`, JSON.stringify(index));
        await rename(`${indexPath}.tmp`, indexPath);
        await runHostCommand("umoci", ["gc", "--layout", this.#layout]);
      }
      for (const pull of pulls) if (removed.includes(pull.digest)) await rm(pull.file, { force: true });
      return removed;
    });
  }

  /** The records of the pulls of every scope (refs/): which digest a reference got. */
  async #pullRecords(): Promise<{ file: string; reference: string; digest: string }[]> {
    const dir = join(this.#dir, "refs");
    const records: { file: string; reference: string; digest: string }[] = [];
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!name.endsWith(".json")) continue;
      const file = join(dir, name);
      try {
        const { reference, digest } = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
        records.push({ file, reference, digest });
      } catch {
        // A record being replaced (its .tmp) or torn: the next sweep reads it again.
      }
    }
    return records;
  }

  /** An image from an uploaded archive: `docker save` output or an OCI archive (tar of an image layout). */
  async importArchive(path: string, name: string): Promise<OciImage> {
    const kind = await archiveKind(path);
    return this.#withLock(() => this.#copyIn(`${kind}:${path}`, [], `archive:${name}`));
  }

  /** Copies an image into the layout under a temporary tag, names it by its manifest digest, and unpacks it. */
  async #copyIn(
    from: string,
    args: string[],
    source: string,
    onProgress?: (line: string) => void,
  ): Promise<OciImage> {
    await mkdir(this.#layout, { recursive: true });
    const temporary = `pull-${randomBytes(6).toString("hex")}`;
    try {
      await runHostCommand(
        "skopeo",
        ["copy", "--quiet=false", ...args, from, `oci:${this.#layout}:${temporary}`],
        { onLine: (line) => onProgress?.(line) },
      );
    } catch (error) {
      throw classify(error, source);
    }
    const digest = await this.#retag(temporary);
    const cached = await this.#cached(digest);
    return cached ? this.#served(cached) : this.#unpack(digest, source);
  }

  /** Moves the temporary tag's manifest to the tag named by its digest; answers the digest. */
  async #retag(temporary: string): Promise<string> {
    const indexPath = join(this.#layout, "index.json");
    const index = JSON.parse(await readFile(indexPath, "utf8")) as OciIndex;
    const entry = index.manifests.find((m) => m.annotations?.[REF_NAME] === temporary);
    if (!entry) throw new OciImageError("invalid", "the image layout lost the image just copied");
    const hex = entry.digest.replace(/^sha256:/, "");
    index.manifests = index.manifests.filter((m) => m !== entry && m.annotations?.[REF_NAME] !== hex);
    index.manifests.push({ ...entry, annotations: { ...entry.annotations, [REF_NAME]: hex } });
    await writeFile(`${indexPath}.tmp`, JSON.stringify(index));
    await rename(`${indexPath}.tmp`, indexPath);
    return entry.digest;
  }

  async #unpack(digest: string, source: string): Promise<OciImage> {
    const hex = digest.replace(/^sha256:/, "");
    const staging = join(this.#dir, `.unpack-${hex}-${randomBytes(4).toString("hex")}`);
    const target = join(this.#dir, "rootfs", hex);
    try {
      await mkdir(staging, { recursive: true, mode: 0o700 });
      await runHostCommand("umoci", [
        "raw",
        "unpack",
        "--image",
        `${this.#layout}:${hex}`,
        join(staging, "rootfs"),
      ]);
      // A sandbox has its own /dev: no device node of an image reaches one.
      await runHostCommand("find", [
        join(staging, "rootfs"),
        "-xdev",
        "(",
        "-type",
        "b",
        "-o",
        "-type",
        "c",
        ")",
        "-delete",
      ]);
      const config = await this.#config(hex);
      const sizeBytes = Number((await runHostCommand("du", ["-sb", join(staging, "rootfs")])).split(/\s/)[0]);
      const record: OciImage = { source, digest, rootfs: join(target, "rootfs"), config, sizeBytes };
      await writeFile(join(staging, "image.json"), `${JSON.stringify(record, null, 2)}\n`);
      await mkdir(join(this.#dir, "rootfs"), { recursive: true });
      await rename(staging, target);
      return record;
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      if (error instanceof OciImageError) throw error;
      throw new OciImageError("invalid", `could not unpack ${source}: ${(error as Error).message}`);
    }
  }

  async #config(hex: string): Promise<OciImageConfig> {
    const manifest = JSON.parse(await readFile(this.#blob(`sha256:${hex}`), "utf8")) as {
      config: { digest: string };
    };
    const image = JSON.parse(await readFile(this.#blob(manifest.config.digest), "utf8")) as {
      config?: { Env?: string[]; WorkingDir?: string; User?: string; Entrypoint?: string[]; Cmd?: string[] };
    };
    const c = image.config ?? {};
    return {
      env: c.Env ?? [],
      workingDir: c.WorkingDir || null,
      user: c.User || null,
      entrypoint: c.Entrypoint?.length ? c.Entrypoint : null,
      cmd: c.Cmd?.length ? c.Cmd : null,
    };
  }

  #blob(digest: string): string {
    const [algorithm, hex] = digest.split(":");
    if (algorithm !== "sha256" || !/^[a-f0-9]{64}$/.test(hex ?? "")) {
      throw new OciImageError("invalid", `the image names a blob '${digest}' that is not a sha256 digest`);
    }
    return join(this.#layout, "blobs", algorithm, hex);
  }

  async #cached(digest: string): Promise<OciImage | null> {
    const file = join(this.#dir, "rootfs", digest.replace(/^sha256:/, ""), "image.json");
    if (!existsSync(file)) return null;
    return JSON.parse(await readFile(file, "utf8")) as OciImage;
  }

  async #checkPublic(registry: string): Promise<void> {
    const host = registryHost(registry);
    let addresses: string[];
    try {
      addresses = await this.#resolve(host);
    } catch (error) {
      throw new OciImageError(
        "unreachable",
        `registry ${registry} does not resolve: ${(error as Error).message}`,
      );
    }
    for (const address of addresses) {
      const label = nonPublicRange(address);
      if (label) {
        throw new OciImageError(
          "blocked_address",
          `registry ${registry} resolves to ${label} address (${address}); list it in allowedRegistries to use it`,
        );
      }
    }
  }

  async #withLock<T>(work: () => Promise<T>): Promise<T> {
    const lock = await acquireFileLock(join(this.#dir, ".lock"), { wait: true });
    try {
      return await work();
    } finally {
      await lock?.release();
    }
  }
}

const REF_NAME = "org.opencontainers.image.ref.name";

interface OciIndex {
  manifests: { digest: string; annotations?: Record<string, string> }[];
}

/** `docker-archive` (has manifest.json) or `oci-archive` (has oci-layout), read from the tar's member names. */
async function archiveKind(path: string): Promise<"docker-archive" | "oci-archive"> {
  let names: string[];
  try {
    names = (await runHostCommand("tar", ["-tf", path])).split("\n").map((n) => n.replace(/^\.\//, ""));
  } catch {
    throw new OciImageError("invalid", "the image archive is not a tar file");
  }
  if (names.includes("oci-layout")) return "oci-archive";
  if (names.includes("manifest.json")) return "docker-archive";
  throw new OciImageError("invalid", "the archive is neither a docker save archive nor an OCI image layout");
}

/** Maps skopeo's failure to a kind; the message keeps skopeo's last line, which never holds credentials. */
function classify(error: unknown, source: string): OciImageError {
  const text = error instanceof HostCommandError ? error.stderr : String(error);
  const last =
    text
      .trim()
      .split("\n")
      .at(-1)
      ?.replace(/^time="[^"]*" level=\w+ msg="?/, "")
      .replace(/"$/, "") ?? "";
  if (/manifest unknown|name unknown|not found|no such image/i.test(text)) {
    return new OciImageError("not_found", `image ${source} was not found: ${last}`);
  }
  if (/unauthorized|authentication required|denied|403 forbidden/i.test(text)) {
    return new OciImageError("unauthorized", `the registry refused access to ${source}: ${last}`);
  }
  if (/connection refused|no such host|i\/o timeout|network is unreachable|tls|dial tcp/i.test(text)) {
    return new OciImageError("unreachable", `the registry of ${source} could not be reached: ${last}`);
  }
  return new OciImageError("invalid", `could not copy ${source}: ${last}`);
}
