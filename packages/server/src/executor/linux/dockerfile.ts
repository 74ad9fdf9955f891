/**
 * # dockerfile
 *
 * Reads a Dockerfile into the steps a build runs: `FROM`, `RUN`, `ENV`, `WORKDIR`, `COPY`/`ADD`, `USER`, `ARG`,
 * `ENTRYPOINT`, `CMD`, with Docker's syntax: `\` line continuations, comments, the JSON (exec) and shell forms,
 * `$VAR`/`${VAR}`/`${VAR:-default}`/`${VAR:+alt}` substitution from `ARG` and `ENV` where Docker substitutes
 * (not in `RUN`, `CMD`, `ENTRYPOINT`: the shell does that), build arguments given by the caller, and the
 * `--from`, `--chown`, `--chmod` flags of `COPY`/`ADD` (`--from` of another stage is refused: one stage only).
 *
 * Instructions that shape only a Docker daemon's view (`LABEL`, `EXPOSE`, `VOLUME`, `HEALTHCHECK`,
 * `STOPSIGNAL`, `SHELL`, `ONBUILD`, `MAINTAINER`) are kept as warnings, not failures, so existing Dockerfiles
 * build. Anything else is a `DockerfileError` naming its line.
 */

export type DockerfileStep =
  | { kind: "from"; line: number; image: string }
  | { kind: "run"; line: number; command: string[]; shell: boolean }
  | { kind: "env"; line: number; vars: [string, string][] }
  /** An `ARG` after `FROM` with the values it has: the environment of later `RUN`s, not of the image. */
  | { kind: "arg"; line: number; vars: [string, string][] }
  | { kind: "workdir"; line: number; path: string }
  | {
      kind: "copy";
      line: number;
      sources: string[];
      dest: string;
      chown: string | null;
      chmod: string | null;
      add: boolean;
    }
  | { kind: "user"; line: number; user: string }
  | { kind: "entrypoint"; line: number; command: string[]; shell: boolean }
  | { kind: "cmd"; line: number; command: string[]; shell: boolean };

export interface Dockerfile {
  steps: DockerfileStep[];
  /** Instructions read and ignored, with their line: `line 4: EXPOSE has no effect on a sandbox`. */
  warnings: string[];
}

export class DockerfileError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(`Dockerfile line ${line}: ${message}`);
    this.name = "DockerfileError";
    this.line = line;
  }
}

const IGNORED = new Set([
  "LABEL",
  "EXPOSE",
  "VOLUME",
  "HEALTHCHECK",
  "STOPSIGNAL",
  "SHELL",
  "ONBUILD",
  "MAINTAINER",
]);
const MAX_STEPS = 1000;

interface Instruction {
  line: number;
  keyword: string;
  rest: string;
}

/** Joins continued lines and drops comments and blank lines; each instruction keeps its first line's number. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let pending: { line: number; text: string } | null = null;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || (pending === null && trimmed === "")) return;
    const continued = /\\$/.test(trimmed);
    const piece = continued ? trimmed.slice(0, -1) : trimmed;
    pending = pending
      ? { line: pending.line, text: `${pending.text} ${piece}` }
      : { line: index + 1, text: piece };
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/s.exec(pending.text.trim());
    if (match) out.push({ line: pending.line, keyword: match[1].toUpperCase(), rest: match[2].trim() });
    pending = null;
  });
  if (pending !== null) {
    const last = pending as { line: number; text: string };
    const match = /^(\S+)\s*(.*)$/s.exec(last.text.trim());
    if (match) out.push({ line: last.line, keyword: match[1].toUpperCase(), rest: match[2].trim() });
  }
  return out;
}

/** Substitutes `$X`, `${X}`, `${X:-d}`, `${X:+a}`; `\$` stays a literal `$`. Unknown variables are empty. */
export function substitute(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(
    /\\\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, op?: string, word?: string, bare?: string) => {
      if (whole === "\\$") return "$";
      const name = braced ?? bare ?? "";
      const value = vars.get(name);
      if (op === "-") return value ? value : (word ?? "");
      if (op === "+") return value ? (word ?? "") : "";
      return value ?? "";
    },
  );
}

/** The exec form `["a", "b"]` as its array, or null when the text is the shell form. */
function execForm(rest: string, line: number): string[] | null {
  if (!rest.startsWith("[")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(rest);
  } catch {
    return null; // Docker too reads a malformed JSON array as the shell form
  }
  if (!Array.isArray(parsed) || parsed.some((p) => typeof p !== "string")) {
    throw new DockerfileError(line, "the exec form is a JSON array of strings");
  }
  return parsed as string[];
}

function command(rest: string, line: number, keyword: string): { command: string[]; shell: boolean } {
  const exec = execForm(rest, line);
  if (exec) {
    if (exec.length === 0 && keyword === "RUN") throw new DockerfileError(line, "RUN needs a command");
    return { command: exec, shell: false };
  }
  if (rest === "") throw new DockerfileError(line, `${keyword} needs a command`);
  return { command: ["/bin/sh", "-c", rest], shell: true };
}

/** Splits on unquoted whitespace, removing the quotes (ENV and ARG values, COPY sources). */
function words(text: string, line: number): string[] {
  const out: string[] = [];
  let current = "";
  let quote: string | null = null;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === "\\" && i + 1 < text.length) {
      current += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) out.push(current);
      current = "";
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (quote) throw new DockerfileError(line, "an unclosed quote");
  if (started) out.push(current);
  return out;
}

/** `KEY=value KEY2="v 2"` or the old `KEY value with spaces`. */
function assignments(rest: string, line: number, keyword: string): [string, string][] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/s.exec(rest);
    if (!match) throw new DockerfileError(line, `${keyword} needs NAME=value`);
    return [[match[1], words(match[2], line).join(" ")]];
  }
  return words(rest, line).map((word) => {
    const eq = word.indexOf("=");
    const name = word.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new DockerfileError(line, `'${word}' is not NAME=value`);
    }
    return [name, word.slice(eq + 1)];
  });
}

/**
 * Parses a Dockerfile. `buildArgs` give `ARG` values (an `ARG` without a value or a build argument is empty);
 * a build argument the Dockerfile does not declare is a warning, as Docker makes it.
 */
export function parseDockerfile(text: string, buildArgs: Readonly<Record<string, string>> = {}): Dockerfile {
  const steps: DockerfileStep[] = [];
  const warnings: string[] = [];
  const vars = new Map<string, string>();
  const declared = new Set<string>();
  const envNames = new Set<string>();
  for (const { line, keyword, rest } of instructions(text)) {
    if (steps.length >= MAX_STEPS) throw new DockerfileError(line, `more than ${MAX_STEPS} instructions`);
    const sub = (s: string) => substitute(s, vars);
    if (keyword !== "FROM" && keyword !== "ARG" && !steps.some((s) => s.kind === "from")) {
      throw new DockerfileError(line, `${keyword} before FROM (a Dockerfile starts with FROM, after ARGs)`);
    }
    switch (keyword) {
      case "FROM": {
        if (steps.some((s) => s.kind === "from")) {
          throw new DockerfileError(line, "a second FROM: multi-stage builds are not supported");
        }
        const [image, as, , ...extra] = words(sub(rest.replace(/^--platform=\S+\s+/, "")), line);
        if (!image) throw new DockerfileError(line, "FROM needs an image");
        if ((as && as.toUpperCase() !== "AS") || extra.length > 0)
          throw new DockerfileError(line, `FROM ${rest}: unexpected words`);
        steps.push({ kind: "from", line, image });
        break;
      }
      case "ARG": {
        const valued: [string, string][] = [];
        for (const word of words(rest, line)) {
          const eq = word.indexOf("=");
          const name = eq < 0 ? word : word.slice(0, eq);
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
            throw new DockerfileError(line, `'${name}' is not an argument name`);
          declared.add(name);
          const value = buildArgs[name] ?? (eq < 0 ? undefined : sub(word.slice(eq + 1)));
          // An ENV of the same name wins over an ARG, as in Docker.
          if (value !== undefined && !envNames.has(name)) vars.set(name, value);
          if (value !== undefined) valued.push([name, value]);
        }
        if (steps.length > 0 && valued.length > 0) steps.push({ kind: "arg", line, vars: valued });
        break;
      }
      case "ENV": {
        const pairs = assignments(rest, line, "ENV").map(([k, v]): [string, string] => [k, sub(v)]);
        for (const [k, v] of pairs) {
          vars.set(k, v);
          envNames.add(k);
        }
        steps.push({ kind: "env", line, vars: pairs });
        break;
      }
      case "RUN": {
        const flags = /^(--[a-z-]+=\S+\s+)+/.exec(rest);
        if (flags) warnings.push(`line ${line}: RUN ${flags[0].trim()} is ignored`);
        steps.push({
          kind: "run",
          line,
          ...command(flags ? rest.slice(flags[0].length) : rest, line, "RUN"),
        });
        break;
      }
      case "CMD":
      case "ENTRYPOINT":
        steps.push({ kind: keyword === "CMD" ? "cmd" : "entrypoint", line, ...command(rest, line, keyword) });
        break;
      case "WORKDIR": {
        const path = sub(words(rest, line).join(" "));
        if (!path) throw new DockerfileError(line, "WORKDIR needs a path");
        steps.push({ kind: "workdir", line, path });
        break;
      }
      case "USER": {
        const user = sub(rest).trim();
        if (!user || /\s/.test(user)) throw new DockerfileError(line, "USER needs one user[:group]");
        steps.push({ kind: "user", line, user });
        break;
      }
      case "COPY":
      case "ADD": {
        const exec = execForm(rest, line);
        let parts = exec ?? words(rest, line);
        let chown: string | null = null;
        let chmod: string | null = null;
        while (parts[0]?.startsWith("--")) {
          const [flag, value = ""] = parts[0].slice(2).split(/=(.*)/s);
          if (flag === "from")
            throw new DockerfileError(line, `${keyword} --from: multi-stage builds are not supported`);
          if (flag === "chown") chown = sub(value);
          else if (flag === "chmod") chmod = sub(value);
          else if (flag === "link" || flag === "keep-git-dir")
            warnings.push(`line ${line}: ${keyword} --${flag} is ignored`);
          else throw new DockerfileError(line, `${keyword} --${flag} is not supported`);
          parts = parts.slice(1);
        }
        parts = parts.map(sub);
        if (parts.length < 2) throw new DockerfileError(line, `${keyword} needs a source and a destination`);
        if (chmod !== null && !/^[0-7]{3,4}$/.test(chmod))
          throw new DockerfileError(line, `--chmod=${chmod} is not an octal mode`);
        const sources = parts.slice(0, -1);
        if (keyword === "ADD" && sources.some((s) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s))) {
          throw new DockerfileError(line, "ADD from a URL is not supported: download it in a RUN step");
        }
        steps.push({
          kind: "copy",
          line,
          sources,
          dest: parts[parts.length - 1],
          chown,
          chmod,
          add: keyword === "ADD",
        });
        break;
      }
      default:
        if (IGNORED.has(keyword)) warnings.push(`line ${line}: ${keyword} has no effect on a sandbox`);
        else throw new DockerfileError(line, `unknown instruction ${keyword}`);
    }
  }
  if (!steps.some((s) => s.kind === "from")) throw new DockerfileError(1, "a Dockerfile needs a FROM");
  for (const name of Object.keys(buildArgs)) {
    if (!declared.has(name)) warnings.push(`build argument ${name} is not declared by an ARG`);
  }
  return { steps, warnings };
}
