/**
 * # start-timeline
 *
 * Where one sandbox start spends its time: each step of the executor (image, cgroups, disk, network, launch,
 * health wait, …) with its start and end in ms since the start began, and the daemon's own start-up phases as
 * it reports them. Steps may overlap (disk and network are made side by side). Cheap (a `performance.now()` per
 * step boundary): every start records one, logged with the sandbox, handed to `onStarted` (the bench) and
 * returned with the started sandbox (the API's start timeline).
 */

import type { StartStep } from "@svc/contract";

export interface TimelineStep {
  step: string;
  /** ms from the start's beginning. */
  from: number;
  to: number;
}

export class StartTimeline {
  /** When the start began, in this process's performance.now() ms. */
  readonly originMs = performance.now();
  /** The same moment as a wall-clock time (epoch ms), comparable with the store's times. */
  readonly beganAt = Date.now();
  readonly steps: TimelineStep[] = [];

  /** Runs `action` as step `step`; the step is recorded whether it succeeds or throws. */
  async time<T>(step: string, action: () => Promise<T>): Promise<T> {
    const from = this.now();
    try {
      return await action();
    } finally {
      this.steps.push({ step, from, to: this.now() });
    }
  }

  /** Records a step whose bounds were measured elsewhere (e.g. the daemon's own phases). */
  add(step: string, from: number, to: number): void {
    this.steps.push({ step, from, to });
  }

  now(): number {
    return performance.now() - this.originMs;
  }

  /** One line per step, in start order: `  12 →   40 ms  disk.mkfs (28 ms)`. */
  format(): string {
    return [...this.steps]
      .sort((a, b) => a.from - b.from)
      .map(
        (s) =>
          `${s.from.toFixed(0).padStart(5)} → ${s.to.toFixed(0).padStart(5)} ms  ${s.step} (${(s.to - s.from).toFixed(0)} ms)`,
      )
      .join("\n");
  }

  /**
   * What the API shows: when the start began (epoch ms) and the steps in start order, in whole tenths of a ms,
   * never before the start's beginning nor ending before they begin (the daemon's phases come from its clock).
   */
  toRecord(): { beganAt: number; steps: StartStep[] } {
    const tenth = (ms: number) => Math.round(Math.max(0, ms) * 10) / 10;
    return {
      beganAt: this.beganAt,
      steps: [...this.steps]
        .sort((a, b) => a.from - b.from)
        .map((s) => ({ step: s.step, from_ms: tenth(s.from), to_ms: tenth(Math.max(s.from, s.to)) })),
    };
  }

  /** `{step: duration}` in whole ms, for a log line. */
  durations(): Record<string, number> {
    return Object.fromEntries(this.steps.map((s) => [s.step, Math.round(s.to - s.from)]));
  }
}
