/**
 * # builds
 *
 * Template build records. A build runs in the server that accepted it, which keeps its live record here and
 * writes it to the store as it goes (build-store.ts): any host's API reads builds from the store, and a server
 * that starts again ends `failed` the builds it was running when it stopped. Followers of a build's log get
 * every past line, then live ones, then the end.
 */
import type { BuildLogEvent, TemplateBuild, TemplateBuildStatus } from "@svc/contract";
import { newId } from "../store/ids.ts";
import type { BuildStore, StoredBuild } from "./build-store.ts";

/** Bytes of log kept per build (its newest lines; older ones are dropped, in memory and in the store). */
export const BUILD_LOG_MAX_BYTES = 1_048_576;
/** Builds a listing answers, newest first. */
const LIST_LIMIT = 500;
/** How long a running build's changes wait to be written together. */
const SAVE_DELAY_MS = 250;

/** Bytes a log line takes against the cap: its text and the event around it. */
function sizeOf(event: BuildLogEvent): number {
  return Buffer.byteLength(event.line) + 48;
}

export class BuildRecord {
  readonly id: string;
  readonly createdAt: number;
  status: TemplateBuildStatus = "pending";
  error: string | null = null;
  templateId: string | null = null;
  steps = 0;
  cachedSteps = 0;
  warnings: string[] = [];
  finishedAt: number | null = null;
  /** The build sandbox while one runs (a restarted server removes it). */
  sandboxId: string | null = null;
  readonly log: BuildLogEvent[] = [];
  /** Lines dropped from the front of `log`. */
  dropped = 0;
  #logBytes = 0;
  readonly #listeners = new Set<() => void>();
  #finished: Promise<void>;
  #finish!: () => void;

  readonly projectId: string;
  readonly templateName: string;
  readonly hostId: string;

  constructor(projectId: string, templateName: string, hostId: string, stored?: StoredBuild) {
    this.projectId = projectId;
    this.templateName = templateName;
    this.hostId = hostId;
    this.id = stored?.id ?? newId("bld");
    this.createdAt = stored?.createdAt ?? Date.now();
    this.#finished = new Promise((resolve) => {
      this.#finish = resolve;
    });
    if (stored) this.load(stored);
  }

  /** Takes the stored state (a build read from the store, or read again while another host runs it). */
  load(stored: StoredBuild): void {
    this.status = stored.status;
    this.error = stored.error;
    this.templateId = stored.templateId;
    this.steps = stored.steps;
    this.cachedSteps = stored.cachedSteps;
    this.warnings = stored.warnings;
    this.finishedAt = stored.finishedAt;
    this.sandboxId = stored.sandboxId;
    this.log.splice(0, this.log.length, ...stored.log);
    this.dropped = stored.logDropped;
    this.#logBytes = stored.log.reduce((sum, event) => sum + sizeOf(event), 0);
    this.#notify();
    if (this.done) this.#finish();
  }

  line(line: string, stream: BuildLogEvent["stream"] = "build"): void {
    const event = { line, stream, timestamp: Date.now() };
    this.log.push(event);
    this.#logBytes += sizeOf(event);
    while (this.#logBytes > BUILD_LOG_MAX_BYTES && this.log.length > 1) {
      this.#logBytes -= sizeOf(this.log.shift() as BuildLogEvent);
      this.dropped++;
    }
    this.#notify();
  }

  end(outcome: { templateId: string } | { error: string }): void {
    if ("error" in outcome) this.line(`build failed: ${outcome.error}`);
    // The record is whole before followers hear of the end.
    this.finishedAt = Date.now();
    this.sandboxId = null;
    if ("error" in outcome) {
      this.status = "failed";
      this.error = outcome.error;
    } else {
      this.status = "succeeded";
      this.templateId = outcome.templateId;
    }
    this.#notify();
    this.#finish();
  }

  get done(): boolean {
    return this.status === "succeeded" || this.status === "failed";
  }

  /** Settles when the build ends. */
  finished(): Promise<void> {
    return this.#finished;
  }

  /** Calls `listener` on each change (a line, a count, the end); returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells followers (and the store) of a change made to a field. */
  changed(): void {
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  stored(): StoredBuild {
    return {
      id: this.id,
      projectId: this.projectId,
      templateName: this.templateName,
      status: this.status,
      error: this.error,
      templateId: this.templateId,
      steps: this.steps,
      cachedSteps: this.cachedSteps,
      warnings: this.warnings,
      hostId: this.hostId,
      sandboxId: this.sandboxId,
      log: this.log,
      logDropped: this.dropped,
      createdAt: this.createdAt,
      finishedAt: this.finishedAt,
    };
  }

  view(): TemplateBuild {
    return {
      build_id: this.id,
      template_name: this.templateName,
      status: this.status,
      error: this.error,
      template_id: this.templateId,
      steps: this.steps,
      cached_steps: this.cachedSteps,
      warnings: this.warnings,
      created_at: this.createdAt,
      finished_at: this.finishedAt,
    };
  }
}

/**
 * The builds of the store, with the live records of those this server runs: each change of a live record is
 * written (a few at a time), its end at once.
 */
export class BuildBook {
  readonly #live = new Map<string, BuildRecord>();
  readonly #store: BuildStore;
  readonly hostId: string;
  /** Writes under way, so a stop can wait for them. */
  readonly #writes = new Set<Promise<void>>();

  constructor(store: BuildStore, hostId: string) {
    this.#store = store;
    this.hostId = hostId;
  }

  /** A new record of this server's, stored before it is answered. */
  async add(projectId: string, templateName: string): Promise<BuildRecord> {
    const record = new BuildRecord(projectId, templateName, this.hostId);
    await this.#store.insert(record.stored());
    this.#live.set(record.id, record);
    let timer: NodeJS.Timeout | null = null;
    let chain = Promise.resolve();
    const write = () => {
      timer = null;
      const snapshot = record.stored();
      const done = record.done;
      chain = chain
        .then(() => this.#store.save({ ...snapshot, log: [...snapshot.log] }))
        .catch(() => undefined)
        .then(() => {
          if (done && this.#live.get(record.id) === record && !timer) this.#live.delete(record.id);
        });
      this.#writes.add(chain);
      const settled = chain;
      settled.then(() => this.#writes.delete(settled));
    };
    record.subscribe(() => {
      if (record.done) {
        if (timer) clearTimeout(timer);
        write();
      } else if (!timer) {
        timer = setTimeout(write, SAVE_DELAY_MS);
      }
    });
    return record;
  }

  /** A build of the project: the live record when this server runs it, else as stored. */
  async get(projectId: string, id: string): Promise<BuildRecord | null> {
    const live = this.#live.get(id);
    if (live) return live.projectId === projectId ? live : null;
    const stored = await this.#store.get(projectId, id);
    return stored ? new BuildRecord(stored.projectId, stored.templateName, stored.hostId, stored) : null;
  }

  /** Whether this server runs the build (its record changes here, not in the store). */
  isLive(record: BuildRecord): boolean {
    return this.#live.get(record.id) === record;
  }

  /** Reads a record again from the store (a build another host runs). */
  async refresh(record: BuildRecord): Promise<void> {
    const stored = await this.#store.get(record.projectId, record.id);
    if (stored) record.load(stored);
  }

  async list(projectId: string): Promise<BuildRecord[]> {
    return (await this.#store.list(projectId, LIST_LIMIT)).map((stored) => {
      const live = this.#live.get(stored.id);
      return live ?? new BuildRecord(stored.projectId, stored.templateName, stored.hostId, stored);
    });
  }

  /** Builds this server runs. */
  running(): BuildRecord[] {
    return [...this.#live.values()].filter((b) => !b.done);
  }

  /**
   * After a restart: the builds this host was running end `failed`, saying so, and `cleanup` removes the build
   * sandbox each had. Answers the builds ended.
   */
  async recover(cleanup: (build: StoredBuild) => Promise<void>): Promise<StoredBuild[]> {
    const ended: StoredBuild[] = [];
    for (const stored of await this.#store.unfinished(this.hostId)) {
      if (this.#live.has(stored.id)) continue;
      const record = new BuildRecord(stored.projectId, stored.templateName, stored.hostId, stored);
      if (stored.sandboxId) await cleanup(stored);
      record.end({ error: "the server running the build stopped before it ended (it was restarted)" });
      await this.#store.save(record.stored());
      ended.push(record.stored());
    }
    return ended;
  }

  /** Waits for the writes under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.#writes]);
  }
}
