import { isImageReference, parseImageReference } from "../executor/linux/image-reference.ts";
import type { ImagesInUse } from "../executor/linux/oci-images.ts";
import type { Logger } from "../log.ts";
import type { Db } from "../store/db.ts";

/** How often the periodic sweep runs (it also runs at start and after an uploaded image is deleted). */
export const IMAGE_SWEEP_INTERVAL_MS = 3_600_000;

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
}

/**
 * Removes the image trees of this host's executor that nothing uses: at start, every `intervalMs`, and when an
 * uploaded image is deleted. One sweep at a time; a failed sweep is logged and the next one tries again.
 */
export class ImageSweeper {
  readonly #o: ImageSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  /** The sweeps asked for, one after another: one asked for after a delete reads the store after it. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ImageSweeperOptions) {
    this.#o = options;
  }

  start(): void {
    this.sweep();
    this.#timer = setInterval(() => this.sweep(), this.#o.intervalMs ?? IMAGE_SWEEP_INTERVAL_MS);
    this.#timer.unref();
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
    await this.#queue;
  }
}
