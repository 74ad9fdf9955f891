/**
 * # node-runtime
 *
 * The shared libraries the daemon's Node needs, taken from the host, so the daemon runs on any image: an OCI
 * image may have no glibc at all (Alpine's musl, a busybox-static tree) or an older one. `ldd` names each
 * library and the dynamic loader; launch.ts binds them read-only at SANDBOX_PATHS.nodeLibs and starts Node
 * through that loader with `--library-path`, which applies to the daemon alone: the processes it starts run
 * the image's own libraries.
 */
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { runHostCommand } from "./host-command.ts";

export interface NodeRuntimeLibs {
  /** File name of the dynamic loader among the files, e.g. `ld-linux-x86-64.so.2`. */
  loader: string;
  /** Host file (symlinks resolved) and its name in the libraries directory. */
  files: { source: string; name: string }[];
  /** The host's `setpriv`, which the launch runs before the daemon (an image may have none); its libraries are among the files. */
  setpriv?: string;
}

/** Parses `ldd` output: `name => /path (0x…)` lines and the loader's `/path (0x…)` line. */
export function parseLdd(text: string): NodeRuntimeLibs {
  const files: { source: string; name: string }[] = [];
  let loader: string | undefined;
  for (const line of text.split("\n")) {
    const linked = /^\s*(\S+) => (\/\S+) \(0x[0-9a-f]+\)/.exec(line);
    if (linked) {
      files.push({ source: linked[2], name: linked[1] });
      continue;
    }
    const direct = /^\s*(\/\S+) \(0x[0-9a-f]+\)/.exec(line);
    if (direct) {
      loader = basename(direct[1]);
      files.push({ source: direct[1], name: loader });
    }
  }
  if (!loader) throw new Error("ldd named no dynamic loader (is the binary linked statically?)");
  return { loader, files };
}

let found: Promise<NodeRuntimeLibs> | undefined;

/**
 * The libraries of the Node binary running this server (node-pty's addon needs a subset of them) and of the
 * host's setpriv, once.
 */
export function nodeRuntimeLibs(): Promise<NodeRuntimeLibs> {
  found ??= (async () => {
    const setpriv = realpathSync((await runHostCommand("sh", ["-c", "command -v setpriv"])).trim());
    const byName = new Map<string, string>();
    let loader: string | undefined;
    for (const binary of [process.execPath, setpriv]) {
      const libs = parseLdd(await runHostCommand("ldd", [binary]));
      loader ??= libs.loader;
      for (const file of libs.files)
        if (!byName.has(file.name)) byName.set(file.name, realpathSync(file.source));
    }
    return {
      loader: loader as string,
      files: [...byName].map(([name, source]) => ({ source, name })),
      setpriv,
    };
  })();
  found.catch(() => {
    found = undefined;
  });
  return found;
}
