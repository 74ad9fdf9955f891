import { randomBytes } from "node:crypto";
import { isImageReference, parseImageReference } from "../executor/linux/image-reference.ts";
import type { ImagesInUse } from "../executor/linux/oci-images.ts";
import type { Logger } from "../log.ts";
import type { Db } from "../store/db.ts";
import type { SettingsRepository } from "../store/settings.ts";

/** How often the periodic sweep runs (it also runs at start and after an uploaded image is deleted). */
export const IMAGE_SWEEP_INTERVAL_MS = 3_600_000;

/** How often a host of several looks whether a sweep was asked for on another host (a DELETE /images served there). */
export const IMAGE_SWEEP_REQUEST_POLL_MS = 5_000;

/** The settings key whose value changes each time a sweep is asked of every host. */
const SWEEP_REQUEST_KEY = "images.sweep_request";

/**
 * Asks every host's sweeper for a sweep (after an uploaded image is deleted): a new token in the shared store,
 * which each host's sweeper polls (`ImageSweeper` with `requests`). A host serving the API without an executor
 * asks too.
 */
export async function requestImageSweeps(settings: SettingsRepository): Promise<void> {
  await settings.set(SWEEP_REQUEST_KEY, randomBytes(8).toString("hex"));
}

const DIGEST = /sha256:[a-f0-9]{64}/g;

/**
 * What the store still needs whatever its age: every uploaded image (its tree cannot be pulled again), and each
 * image a sandbox that is not over, a pool, a template or a snapshot names: by digest (an uploaded image is
 * recorded as `archive:<name>@<digest>`, a pinned reference as `...@<digest>`), or by reference, whose pulled
 * tree the executor maps to the digest its pulls got. A template or snapshot counts by its pinned image alone:
 * the tag it was made from may point elsewhere now; only a row made before pinning counts by its tag.
 */
export async function imagesInUse(db: Db): Promise<ImagesInUse> {
  const rows = await db.query<{ image: string | null }>(
    `SELECT digest AS image FROM sandbox_images
     UNION SELECT image FROM sandboxes WHERE status <> 'terminated'
     UNION SELECT image FROM sandbox_pools
     UNION SELECT COALESCE(pinned_image, base_image) AS image FROM sandbox_templates
     UNION SELECT COALESCE(pinned_image, base_image) AS image FROM sandbox_snapshots`,
  );
  const digests = new Set<string>();
  const references = new Set<string>();
  for (const { image } of rows) {
    if (!image) continue;
    for (const digest of image.match(DIGEST) ?? []) digests.add(digest);
    if (!image.startsWith("archive:") && isImageReference(image)) {
      try {
        references.add(parseImageReference(image).canonical);
      } catch {
        // Not a reference after all (checked when it was recorded): nothing to keep for it.
      }
    }
  }
  return { digests, references };
}

export interface ImageSweeperOptions {
  db: Db;
  /** The executor's sweep (LocalExecutor.sweepImages). */
  sweep: (keep: ImagesInUse, graceMs: number) => Promise<string[]>;
  /** A tree not served for this long may go (config imageGraceSecs). */
  graceMs: number;
  log: Logger;
  intervalMs?: number;
  /**
   * Several hosts: the shared settings, polled every `pollMs` for a sweep another host asked for
   * (requestImageSweeps), so a DELETE /images served anywhere sweeps every host's trees, not only its own.
   */
  requests?: { settings: SettingsRepository; pollMs?: number };
}

/**
 * Removes the image trees of this host's executor that nothing uses: at start, every `intervalMs`, and when an
 * uploaded image is deleted (on any host, with `requests`). One sweep at a time; a failed sweep is logged and the
 * next one tries again.
 */
export class ImageSweeper {
  readonly #o: ImageSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #polling: NodeJS.Timeout | undefined;
  /** The last sweep request seen in the shared store (undefined until read). */
  #seen: string | null | undefined;
  /** The sweeps asked for, one after another: one asked for after a delete reads the store after it. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ImageSweeperOptions) {
    this.#o = options;
  }

  start(): void {
    const requests = this.#o.requests;
    // The request in force before the start sweep (queued first): that sweep covers it; any later one differs.
    if (requests) {
      this.#queue = requests.settings.get(SWEEP_REQUEST_KEY).then(
        (request) => {
          this.#seen = request;
        },
        () => {
          this.#seen = null;
        },
      );
    }
    this.sweep();
    this.#timer = setInterval(() => this.sweep(), this.#o.intervalMs ?? IMAGE_SWEEP_INTERVAL_MS);
    this.#timer.unref();
    if (requests) {
      this.#polling = setInterval(() => {
        this.#checkRequest(requests.settings).catch((error) =>
          this.#o.log("image sweep request check failed", { error: String(error) }),
        );
      }, requests.pollMs ?? IMAGE_SWEEP_REQUEST_POLL_MS);
      this.#polling.unref();
    }
  }

  /** Sweeps when the shared request changed since it was last seen. */
  async #checkRequest(settings: SettingsRepository): Promise<void> {
    if (this.#seen === undefined) return; // the first read is still under way
    const request = await settings.get(SWEEP_REQUEST_KEY);
    if (request === this.#seen) return;
    this.#seen = request;
    await this.sweep();
  }

  /** Runs a sweep after any under way; answers the digests removed (none when it failed, which is logged). */
  sweep(): Promise<string[]> {
    const run = this.#queue.then(async () => {
      try {
        const removed = await this.#o.sweep(await imagesInUse(this.#o.db), this.#o.graceMs);
        if (removed.length > 0) this.#o.log("removed unused image trees", { digests: removed });
        return removed;
      } catch (error) {
        this.#o.log("image sweep failed", { error: String(error) });
        return [];
      }
    });
    this.#queue = run;
    return run;
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    clearInterval(this.#polling);
    await this.#queue;
  }
}
