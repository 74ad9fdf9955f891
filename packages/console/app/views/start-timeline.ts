import type { SandboxStartTimeline } from "@svc/contract";
import { h } from "../dom.ts";

/** A duration as ms below a second, else seconds. */
function span(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/**
 * A sandbox's start as the executor timed it: the wait for an executor, then one row per step with a bar placed
 * on the start's span (steps may overlap: disk and network are made side by side). Each row says its step and
 * duration in text, so the bars are decoration for screen readers.
 */
export function startTimelineView(timeline: SandboxStartTimeline): HTMLElement {
  const total = Math.max(1, ...timeline.steps.map((s) => s.to_ms));
  const waited =
    timeline.start_began_at !== null ? Math.max(0, timeline.start_began_at - timeline.created_at) : null;
  const ran =
    timeline.running_at !== null && timeline.start_began_at !== null
      ? timeline.running_at - timeline.start_began_at
      : null;
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(2)}%`;
  return h(
    "div",
    { class: "start-timeline" },
    h(
      "p",
      {},
      waited === null ? "Not started on an executor yet." : `Waited ${span(waited)} for an executor`,
      ran !== null ? `; started in ${span(ran)}.` : waited === null ? "" : ".",
    ),
    timeline.steps.length
      ? h(
          "ol",
          { class: "steps", "aria-label": "Start steps" },
          timeline.steps.map((step) => {
            const bar = h("span", { class: "bar", "aria-hidden": "true" });
            bar.style.marginLeft = pct(step.from_ms);
            bar.style.width = pct(Math.max(step.to_ms - step.from_ms, total / 400));
            return h(
              "li",
              { "data-step": step.step },
              h("span", { class: "step" }, step.step),
              h("span", { class: "took" }, span(step.to_ms - step.from_ms)),
              h("span", { class: "track" }, bar),
            );
          }),
        )
      : null,
  );
}
