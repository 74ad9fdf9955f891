import type { Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { ServiceError } from "@svc/contract/errors";

/**
 * The user file operations act as: the daemon's default user (`svc-user`). Structural, so the process
 * manager's resolved user fits as it is.
 */
export interface FileUser {
  uid: number;
  gid: number;
  /** Relative request paths resolve against it. */
  home: string;
  /** Used to find the user's supplementary groups in /etc/group when `groups` is absent. */
  name?: string;
  /** Supplementary group ids. */
  groups?: readonly number[];
}

export const READ = 4;
export const WRITE = 2;
export const SEARCH = 1;

const STICKY = 0o1000;
const SETGID = 0o2000;

/** The group ids listed for `name` in /etc/group text, plus `primaryGid`. */
export function groupsOf(groupFile: string, name: string | undefined, primaryGid: number): Set<number> {
  const groups = new Set([primaryGid]);
  if (name === undefined) return groups;
  for (const line of groupFile.split("\n")) {
    const [, , gid, members] = line.split(":");
    if (members === undefined || !/^\d+$/.test(gid)) continue;
    if (members.trim().split(",").includes(name)) groups.add(Number(gid));
  }
  return groups;
}

/**
 * Permission checks and ownership for one request, as the default user.
 *
 * When the daemon runs as root and the user is not root, the kernel would let every operation through, so the
 * user's permissions are checked here from the mode bits, the way the kernel checks them for that uid and its
 * groups: search on every directory walked, read or write on the file, write and search on a directory whose
 * entries change, and the sticky-bit rule for removing or replacing an entry. New files and directories are
 * chowned to the user. Otherwise (the daemon is not root, or the user is root) the kernel decides alone.
 */
export class FileAccess {
  readonly user: FileUser;
  /** Whether the mode bits are checked here. */
  readonly enforced: boolean;
  /** Whether the daemon can give files away (it runs as root). */
  readonly canChown: boolean;
  readonly #groups: ReadonlySet<number>;

  constructor(user: FileUser, groups: Iterable<number>, daemonUid: number) {
    this.user = user;
    this.canChown = daemonUid === 0;
    this.enforced = daemonUid === 0 && user.uid !== 0;
    this.#groups = new Set(groups);
  }

  /** The access of the default user for one request; /etc/group is read afresh, so group changes apply. */
  static async of(user: FileUser, daemonUid: number = process.getuid?.() ?? -1): Promise<FileAccess> {
    let groups: Iterable<number> = [user.gid, ...(user.groups ?? [])];
    if (user.groups === undefined && user.name !== undefined && daemonUid === 0 && user.uid !== 0) {
      const groupFile = await readFile("/etc/group", "utf8").catch(() => "");
      groups = groupsOf(groupFile, user.name, user.gid);
    }
    return new FileAccess(user, groups, daemonUid);
  }

  /** Whether the user has every permission bit of `want` (READ, WRITE, SEARCH) on a file. */
  allows(stat: Pick<Stats, "mode" | "uid" | "gid">, want: number): boolean {
    if (!this.enforced) return true;
    const bits =
      stat.uid === this.user.uid
        ? (stat.mode >> 6) & 7
        : this.#groups.has(stat.gid)
          ? (stat.mode >> 3) & 7
          : stat.mode & 7;
    return (bits & want) === want;
  }

  require(stat: Pick<Stats, "mode" | "uid" | "gid">, want: number, path: string): void {
    if (!this.allows(stat, want)) throw new ServiceError("PERMISSION_DENIED", `Permission denied: ${path}`);
  }

  /** An entry may be removed or replaced: write and search on its directory, and the sticky-bit rule. */
  requireRemovable(
    directory: Pick<Stats, "mode" | "uid" | "gid">,
    entry: Pick<Stats, "uid"> | undefined,
    path: string,
  ): void {
    this.require(directory, WRITE | SEARCH, path);
    if (!this.enforced || entry === undefined || (directory.mode & STICKY) === 0) return;
    if (directory.uid !== this.user.uid && entry.uid !== this.user.uid) {
      throw new ServiceError("PERMISSION_DENIED", `Permission denied (sticky directory): ${path}`);
    }
  }

  /**
   * Who a new entry in `directory` belongs to: the user, with the directory's group when the directory is
   * set-group-ID (as the kernel does). Undefined when the daemon cannot chown.
   */
  newOwner(directory: Pick<Stats, "mode" | "gid">): { uid: number; gid: number } | undefined {
    if (!this.canChown) return undefined;
    return { uid: this.user.uid, gid: (directory.mode & SETGID) !== 0 ? directory.gid : this.user.gid };
  }
}
