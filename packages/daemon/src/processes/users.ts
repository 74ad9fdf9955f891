import { readFileSync, statSync } from "node:fs";
import { ServiceError } from "@svc/contract/errors";
import { parseProcessUser } from "@svc/contract/runtime";

/** Who a process runs as, resolved to ids. */
export interface ResolvedUser {
  /** The passwd name, or the uid as text when the uid has no passwd entry. */
  name: string;
  uid: number;
  gid: number;
  /** The passwd home directory, or `/` without an entry. */
  home: string;
}

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

/** Parses passwd(5) text; malformed lines are skipped. */
export function parsePasswd(text: string): PasswdEntry[] {
  const entries: PasswdEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const fields = line.split(":");
    if (fields.length < 7) continue;
    const uid = Number(fields[2]);
    const gid = Number(fields[3]);
    if (!/^\d+$/.test(fields[2]) || !/^\d+$/.test(fields[3])) continue;
    entries.push({ name: fields[0], uid, gid, home: fields[5] || "/", shell: fields[6] });
  }
  return entries;
}

/** The users of /etc/passwd, re-read whenever the file changes. */
export class UserDatabase {
  readonly #path: string;
  #stamp = "";
  #byName = new Map<string, PasswdEntry>();
  #byUid = new Map<number, PasswdEntry>();

  constructor(path = "/etc/passwd") {
    this.#path = path;
  }

  byName(name: string): PasswdEntry | undefined {
    this.#refresh();
    return this.#byName.get(name);
  }

  byUid(uid: number): PasswdEntry | undefined {
    this.#refresh();
    return this.#byUid.get(uid);
  }

  #refresh(): void {
    let stamp: string;
    try {
      const stat = statSync(this.#path);
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      stamp = "missing";
    }
    if (stamp === this.#stamp) return;
    this.#stamp = stamp;
    this.#byName = new Map();
    this.#byUid = new Map();
    let text = "";
    try {
      text = readFileSync(this.#path, "utf8");
    } catch {
      // No passwd file: only numeric users resolve.
    }
    for (const entry of parsePasswd(text)) {
      if (!this.#byName.has(entry.name)) this.#byName.set(entry.name, entry);
      if (!this.#byUid.has(entry.uid)) this.#byUid.set(entry.uid, entry);
    }
  }
}

/**
 * Resolves the `user` field of a process request: a user name, a uid (`"1000"`), `"uid:gid"`, `{uid, gid?}` or
 * `{name, gid?}`. A name must exist in passwd; a uid need not (its gid is then the uid and its home `/`). A
 * missing gid is the passwd primary group. Anything else is a 400 INVALID_USER.
 */
export function resolveUser(user: unknown, users: UserDatabase): ResolvedUser {
  const parsed = parseProcessUser(user);
  if (!parsed) {
    throw new ServiceError(
      "INVALID_USER",
      'user must be a user name, a uid ("1000"), "uid:gid" ("1000:1000"), or an object {uid, gid}',
    );
  }
  if (parsed.kind === "name") {
    const entry = users.byName(parsed.name);
    if (!entry)
      throw new ServiceError("INVALID_USER", `no user named "${parsed.name}" exists in the sandbox`);
    return { name: entry.name, uid: entry.uid, gid: parsed.gid ?? entry.gid, home: entry.home };
  }
  const entry = users.byUid(parsed.uid);
  return {
    name: entry?.name ?? String(parsed.uid),
    uid: parsed.uid,
    gid: parsed.gid ?? entry?.gid ?? parsed.uid,
    home: entry?.home ?? "/",
  };
}
