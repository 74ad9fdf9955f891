/**
 * # defaults
 *
 * Reads the process defaults a sandbox's root may hold (PROCESS_DEFAULTS_FILE: a template built from a
 * Dockerfile writes its ENV, WORKDIR and USER there). A missing file is no defaults; a file that is not the
 * expected shape is reported and ignored, so a sandbox still starts.
 */
import { readFileSync } from "node:fs";

export interface ProcessDefaults {
  env?: Record<string, string>;
  workingDir?: string;
  user?: string;
}

/** A user as a start request names one: a name, or `uid[:gid]`. */
const USER = /^(?:[A-Za-z_][A-Za-z0-9_.-]*\$?|[0-9]{1,10}(?::[0-9]{1,10})?)$/;

function knownUser(name: string, passwdFile: string): boolean {
  try {
    return readFileSync(passwdFile, "utf8")
      .split("\n")
      .some((line) => line.startsWith(`${name}:`));
  } catch {
    return false;
  }
}

/** The defaults of `file`; a user name must be in `passwdFile` (else the daemon could not start as it). */
export function readProcessDefaults(
  file: string,
  log: (message: string) => void,
  passwdFile = "/etc/passwd",
): ProcessDefaults {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      log(`cannot read ${file}: ${(error as Error).message}`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    log(`${file} is not JSON: ignored`);
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    log(`${file} is not a JSON object: ignored`);
    return {};
  }
  const { env, working_dir: workingDir, user } = parsed as Record<string, unknown>;
  const out: ProcessDefaults = {};
  if (env !== undefined) {
    const entries =
      typeof env === "object" && env !== null && !Array.isArray(env) ? Object.entries(env) : null;
    if (entries?.every(([k, v]) => typeof v === "string" && /^[^=\0]+$/.test(k) && !v.includes("\0"))) {
      out.env = Object.fromEntries(entries) as Record<string, string>;
    } else log(`${file}: env is not an object of strings: ignored`);
  }
  if (workingDir !== undefined) {
    if (typeof workingDir === "string" && workingDir.startsWith("/") && !workingDir.includes("\0")) {
      out.workingDir = workingDir;
    } else log(`${file}: working_dir is not an absolute path: ignored`);
  }
  if (user !== undefined) {
    if (typeof user !== "string" || user.length > 32 || !USER.test(user)) {
      log(`${file}: user is not a user name or id: ignored`);
    } else if (/^\d/.test(user) || knownUser(user, passwdFile)) out.user = user;
    else log(`${file}: user ${user} is not in ${passwdFile}: ignored`);
  }
  return out;
}
