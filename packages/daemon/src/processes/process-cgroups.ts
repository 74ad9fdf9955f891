import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * # process cgroups
 *
 * One cgroup per process tree the daemon starts (a process of the API, a PTY session, sshd), so that killing it
 * (or its timeout) ends the whole tree at once with cgroup2 `cgroup.kill`, grandchildren that left the process
 * group or daemonized included, and without ever signalling the daemon.
 *
 * The executor gives the daemon two sets of cgroup directories (one per hierarchy: memory, cpu, pids, freezer,
 * the cgroup2 tree...), bound under one root:
 * - `<root>/workload/<hierarchy>`: the user's side of the sandbox, with less memory and fewer tasks than the
 *   sandbox has; each tree gets a child group `<name>` there.
 * - `<root>/daemon/<hierarchy>`: the daemon's own groups (a reserve of memory and tasks, a larger CPU weight).
 *
 * Node has no pre-exec hook, so a child cannot join its group between fork and exec. Instead the daemon moves its
 * whole process (every thread) into the child's groups, spawns synchronously (the child is born there), and moves
 * its whole process back: a thread the spawn started (node-pty's waitpid thread) moves back with it. Nothing of
 * the user's runs before the child is in its group, so nothing escapes.
 */
export class ProcessCgroups {
  readonly root: string;
  readonly #hierarchies: string[];
  readonly #log: (message: string) => void;

  /** Throws when `root` lacks the two sets, or the cgroup2 tree that gives `cgroup.kill`. */
  constructor(root: string, log: (message: string) => void = () => {}) {
    this.root = root;
    this.#log = log;
    this.#hierarchies = readdirSync(join(root, "workload")).sort();
    for (const hierarchy of this.#hierarchies) {
      if (!existsSync(join(root, "daemon", hierarchy, "cgroup.procs"))) {
        throw new Error(`process cgroups: ${join(root, "daemon", hierarchy)} is missing`);
      }
    }
    if (!existsSync(join(root, "workload", "unified", "cgroup.procs"))) {
      throw new Error(`process cgroups: ${join(root, "workload", "unified")} (cgroup2) is missing`);
    }
  }

  /** The hierarchies both sets have (`memory`, `cpu`, `pids`, `unified`...). */
  get hierarchies(): readonly string[] {
    return this.#hierarchies;
  }

  /**
   * Runs a synchronous spawn so that the child is born in the group `name` of every hierarchy (created here), and
   * returns what it returns. The daemon is back in its own groups when this returns or throws.
   */
  spawnInto<T>(name: string, spawn: () => T): T {
    checkName(name);
    for (const hierarchy of this.#hierarchies) {
      mkdirSync(join(this.root, "workload", hierarchy, name), { recursive: true });
    }
    // The daemon's OOM score stays as it is: for the spawn it is in the workload's memory group, whose OOM
    // killer must pick the workload's processes (the caller raises the child's score), never the daemon.
    try {
      // "0" is the writing process: the whole thread group moves.
      for (const hierarchy of this.#hierarchies) {
        writeFileSync(join(this.root, "workload", hierarchy, name, "cgroup.procs"), "0");
      }
      return spawn();
    } finally {
      this.#returnHome();
    }
  }

  /** Makes a process the OOM killer's first choice (raising needs no privilege); false when it cannot. */
  raiseOomScore(pid: number): boolean {
    try {
      writeFileSync(`/proc/${pid}/oom_score_adj`, "1000");
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ESRCH")
        this.#log(`cannot raise the OOM score of ${pid}: ${(error as Error).message}`);
      return false;
    }
  }

  #returnHome(): void {
    for (const hierarchy of this.#hierarchies) {
      try {
        writeFileSync(join(this.root, "daemon", hierarchy, "cgroup.procs"), "0");
      } catch (error) {
        this.#log(`cannot move the daemon back to its ${hierarchy} group: ${(error as Error).message}`);
      }
    }
  }

  /** Kills every process of the group at once (`cgroup.kill`); false when the group does not exist. */
  kill(name: string): boolean {
    checkName(name);
    try {
      writeFileSync(join(this.root, "workload", "unified", name, "cgroup.kill"), "1");
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") this.#log(`cannot kill cgroup ${name}: ${(error as Error).message}`);
      return false;
    }
  }

  /** Whether any process is left in the group (false when the group is gone). */
  populated(name: string): boolean {
    checkName(name);
    try {
      const events = readFileSync(join(this.root, "workload", "unified", name, "cgroup.events"), "utf8");
      return /^populated 1$/m.test(events);
    } catch {
      return false;
    }
  }

  /** Removes the group when nothing runs in it any more; true when it is gone. */
  remove(name: string): boolean {
    checkName(name);
    if (this.populated(name)) return false;
    let gone = true;
    for (const hierarchy of this.#hierarchies) {
      try {
        rmdirSync(join(this.root, "workload", hierarchy, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") gone = false;
      }
    }
    return gone;
  }

  /** Removes every empty group of processes that ended (those whose detached children ended later). */
  sweep(keep: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = readdirSync(join(this.root, "workload", "unified"), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return;
    }
    for (const name of names) if (!keep.has(name) && NAME_PATTERN.test(name)) this.remove(name);
  }
}

const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

function checkName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw new Error(`not a process cgroup name: ${JSON.stringify(name)}`);
}
