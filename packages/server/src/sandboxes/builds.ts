/**
 * # builds
 *
 * Template build records: status, counts and the log, kept in this process while it runs (a build runs in the
 * server that accepted it). Followers of a build's log get every past line, then live ones, then the end.
 */
import type { BuildLogEvent, TemplateBuild, TemplateBuildStatus } from "@svc/contract";
import { newId } from "../store/ids.ts";

/** Lines kept per build; older ones are dropped (a follower joining late reads the newest). */
const MAX_LOG_LINES = 20_000;
/** Finished builds kept per server, newest first. */
const MAX_BUILDS = 500;

export class BuildRecord {
  readonly id = newId("bld");
  readonly createdAt = Date.now();
  status: TemplateBuildStatus = "pending";
  error: string | null = null;
  templateId: string | null = null;
  steps = 0;
  cachedSteps = 0;
  warnings: string[] = [];
  finishedAt: number | null = null;
  readonly log: BuildLogEvent[] = [];
  /** Lines dropped from the front of `log`. */
  dropped = 0;
  readonly #listeners = new Set<() => void>();
  #finished: Promise<void>;
  #finish!: () => void;

  readonly projectId: string;
  readonly templateName: string;

  constructor(projectId: string, templateName: string) {
    this.projectId = projectId;
    this.templateName = templateName;
    this.#finished = new Promise((resolve) => {
      this.#finish = resolve;
    });
  }

  line(line: string, stream: BuildLogEvent["stream"] = "build"): void {
    this.log.push({ line, stream, timestamp: Date.now() });
    if (this.log.length > MAX_LOG_LINES) {
      this.log.shift();
      this.dropped++;
    }
    this.#notify();
  }

  end(outcome: { templateId: string } | { error: string }): void {
    if ("error" in outcome) this.line(`build failed: ${outcome.error}`);
    // The record is whole before followers hear of the end.
    this.finishedAt = Date.now();
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

  /** Calls `listener` on each new line and at the end; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
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

/** The builds this server runs and ran. */
export class BuildBook {
  readonly #builds = new Map<string, BuildRecord>();

  add(record: BuildRecord): void {
    this.#builds.set(record.id, record);
    if (this.#builds.size > MAX_BUILDS) {
      const oldest = [...this.#builds.values()].find((b) => b.done);
      if (oldest) this.#builds.delete(oldest.id);
    }
  }

  get(projectId: string, id: string): BuildRecord | null {
    const record = this.#builds.get(id);
    return record && record.projectId === projectId ? record : null;
  }

  list(projectId: string): BuildRecord[] {
    return [...this.#builds.values()].filter((b) => b.projectId === projectId).reverse();
  }

  /** Builds still running: the server waits for them when it stops. */
  running(): BuildRecord[] {
    return [...this.#builds.values()].filter((b) => !b.done);
  }
}
