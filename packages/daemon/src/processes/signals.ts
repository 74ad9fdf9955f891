import { constants } from "node:os";

/** glibc's SIGRTMIN and the kernel's SIGRTMAX on Linux (signals 32 and 33 are reserved by glibc). */
const SIGRTMIN = 34;
const SIGRTMAX = 64;

/**
 * The number of a signal given as a number (1..64) or a name, with or without `SIG`, in any case: `SIGTERM`,
 * `term`, `SIGRTMIN+2`, `RTMAX-1`. Undefined when it names no signal.
 */
export function signalNumber(value: number | string): number | undefined {
  if (typeof value === "number")
    return Number.isInteger(value) && value >= 1 && value <= SIGRTMAX ? value : undefined;
  const upper = value.trim().toUpperCase();
  const name = upper.startsWith("SIG") ? upper : `SIG${upper}`;
  const known = (constants.signals as Record<string, number | undefined>)[name];
  if (known !== undefined && known >= 1) return known;
  const realtime = /^SIGRT(MIN|MAX)(?:([+-])(\d{1,2}))?$/.exec(name);
  if (!realtime) return undefined;
  const base = realtime[1] === "MIN" ? SIGRTMIN : SIGRTMAX;
  const delta = realtime[2] === undefined ? 0 : Number(realtime[3]) * (realtime[2] === "+" ? 1 : -1);
  const number = base + delta;
  return number >= SIGRTMIN && number <= SIGRTMAX ? number : undefined;
}

/** The number of a signal name as Node reports it on exit (`"SIGKILL"` → 9). */
export function signalNumberOfName(name: NodeJS.Signals | string): number | undefined {
  return (constants.signals as Record<string, number | undefined>)[name];
}
