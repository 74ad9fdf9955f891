import { readdirSync, readFileSync } from "node:fs";
import { CLOCK_TICKS, statFields } from "./children-cpu.ts";

/** CPU milliseconds and minor page faults of this process's threads of one kind. */
export interface ThreadKind {
  cpuMs: number;
  faults: number;
}

/**
 * CPU milliseconds and minor page faults of this process's threads so far (Linux /proc/self/task), summed by
 * thread name: `MainThread` (the parse in process), `WorkerThread` (worker threads, the extraction helper among
 * them), `V8Worker` (V8's background tasks: optimizing compilers, concurrent marking, parallel scavenges, sweeping),
 * `libvips worker` (sharp) and `libuv-worker` (zlib, file reads). A thread that ended is no longer counted, so
 * compare two readings of threads that live through both (the bench's are kept between parses).
 */
export function threadKinds(): Map<string, ThreadKind> {
  const kinds = new Map<string, ThreadKind>();
  for (const task of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = statFields(stat);
    const kind = kinds.get(name) ?? { cpuMs: 0, faults: 0 };
    kind.cpuMs += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    kind.faults += Number(fields[7]);
    kinds.set(name, kind);
  }
  return kinds;
}

/** Each kind's CPU ms and faults a page between two readings, largest CPU first, kinds under 0.5 ms a page left out. */
export function threadKindsPerPage(
  before: Map<string, ThreadKind>,
  after: Map<string, ThreadKind>,
  pages: number,
): string {
  return [...after]
    .map(([name, a]) => {
      const b = before.get(name) ?? { cpuMs: 0, faults: 0 };
      return { name, cpu: (a.cpuMs - b.cpuMs) / pages, faults: (a.faults - b.faults) / pages };
    })
    .filter((k) => k.cpu >= 0.5)
    .sort((x, y) => y.cpu - x.cpu)
    .map((k) => `${k.name} ${k.cpu.toFixed(1)} ms (${k.faults.toFixed(0)} faults)`)
    .join(", ");
}
