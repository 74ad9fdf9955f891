import { readdirSync, readFileSync } from "node:fs";

/** Kernel clock ticks a second (USER_HZ), the unit of /proc's CPU times. */
export const CLOCK_TICKS = 100;

/** The CPU fields of a /proc stat line, after the command's closing parenthesis. */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * CPU milliseconds of this process's child processes (Linux /proc): those ended and reaped (cutime + cstime of
 * /proc/self/stat), and those still running with what their own reaped children used (utime + stime + cutime +
 * cstime of each), such as the spawn helper that starts tesseract (packages/docparse/src/ocr/spawn-helper.ts),
 * which lives as long as the thread that forked it, and whose tesseract processes it reaps itself.
 */
export function childrenCpuMs(): number {
  const own = statFields(readFileSync("/proc/self/stat", "utf8"));
  let ticks = Number(own[13]) + Number(own[14]);
  for (const task of readdirSync("/proc/self/task")) {
    const children = readFileSync(`/proc/self/task/${task}/children`, "utf8").trim();
    for (const pid of children ? children.split(" ") : []) {
      try {
        const fields = statFields(readFileSync(`/proc/${pid}/stat`, "utf8"));
        ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      } catch {
        // It ended meanwhile: its time is in cutime once reaped.
      }
    }
  }
  return (ticks * 1000) / CLOCK_TICKS;
}
