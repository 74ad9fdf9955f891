/**
 * # dockerignore
 *
 * A build context's `.dockerignore`, as `docker build` reads it: one pattern a line, `#` comments, paths relative
 * to the context root (a leading `/` or `./` means the same), `*` and `?` within a path segment, `**` across
 * segments, `!` to take back an exclusion; the last matching line decides, and a pattern that matches a directory
 * excludes what is under it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";

interface Rule {
  negate: boolean;
  pattern: RegExp;
}

function compile(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      // `**/` matches no segment or any number of them; a trailing `**` anything below.
      if (pattern[i + 2] === "/") {
        out += "(?:.*/)?";
        i += 2;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  // A match of a directory covers what is under it.
  return new RegExp(`^${out}(?:/.*)?$`);
}

/** The rules of a `.dockerignore` text. */
export function parseDockerignore(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    if (negate) line = line.slice(1).trim();
    const normal = posix.normalize(line.replace(/^\/+/, "")).replace(/\/+$/, "");
    if (normal === "." || normal === "" || normal.startsWith("..")) continue;
    rules.push({ negate, pattern: compile(normal) });
  }
  return rules;
}

/** Whether the rules leave `path` (relative, `/`-separated) out of the context. */
export function ignored(rules: readonly Rule[], path: string): boolean {
  let out = false;
  for (const rule of rules) if (rule.pattern.test(path)) out = !rule.negate;
  return out;
}

/**
 * Every path of the context directory that the rules keep (directories too), relative to it; the Dockerfile and
 * `.dockerignore` are always kept, as Docker sends them.
 */
export function contextPaths(dir: string, keep: readonly string[] = []): string[] {
  let rules: Rule[] = [];
  try {
    rules = parseDockerignore(readFileSync(join(dir, ".dockerignore"), "utf8"));
  } catch {
    // no .dockerignore: everything goes
  }
  const always = new Set([".dockerignore", ...keep]);
  const out: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (!always.has(path) && ignored(rules, path)) {
        // An exclusion taken back below an ignored directory still needs the walk.
        if (entry.isDirectory() && rules.some((r) => r.negate)) walk(path);
        continue;
      }
      out.push(path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk("");
  return out;
}
