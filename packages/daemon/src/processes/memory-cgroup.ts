import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The sandbox's memory cgroup, as far as processes need it: its OOM-kill counter (cgroup v1
 * `memory.oom_control`, or cgroup v2 `memory.events`) and joining a process to it.
 *
 * A process was killed by the kernel's OOM killer when it died of SIGKILL and the counter went up while it ran.
 */
export class MemoryCgroup {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The cgroup's `oom_kill` counter; undefined when it cannot be read. */
  oomKillCount(): number | undefined {
    for (const file of ["memory.oom_control", "memory.events"]) {
      let text: string;
      try {
        text = readFileSync(join(this.dir, file), "utf8");
      } catch {
        continue;
      }
      const match = /^oom_kill (\d+)$/m.exec(text);
      if (match) return Number(match[1]);
    }
    return undefined;
  }

  /** Moves a process into the cgroup (a no-op when it is there already). Throws when the write fails. */
  addProcess(pid: number): void {
    writeFileSync(join(this.dir, "cgroup.procs"), String(pid));
  }
}
