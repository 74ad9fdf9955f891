import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

/**
 * Builds the web console: `app/` bundled by esbuild into `<outDir>/index.html` and `<outDir>/assets/*` (the
 * terminal's xterm.js is a chunk of its own, loaded with a sandbox's page), each file with a `.gz` beside it for
 * the server to send gzipped. The SDK's Node-only imports (files, sockets, `ws`) are stubbed: the console uses
 * its browser-safe parts (transport, routes, frames) and the browser's own fetch and WebSocket.
 */

export const APP_DIR = fileURLToPath(new URL("../app", import.meta.url));
export const DEFAULT_OUT_DIR = fileURLToPath(new URL("../dist", import.meta.url));

export interface ConsoleBuild {
  outDir: string;
  /** Gzipped bytes of the console's own code: its entry and the chunks that are not xterm.js. */
  ownGzipBytes: number;
  /** Gzipped bytes of the chunks that hold xterm.js (loaded with a sandbox's page only). */
  terminalGzipBytes: number;
  /** Every output file with its raw and gzipped sizes. */
  files: { file: string; bytes: number; gzipBytes: number }[];
}

/** Node built-ins and `ws` as an empty CommonJS module (named imports read as undefined; classes as stubs). */
const nodeStub: esbuild.Plugin = {
  name: "node-stub",
  setup(build) {
    build.onResolve({ filter: /^(node:.*|ws)$/ }, (args) => ({ path: args.path, namespace: "node-stub" }));
    build.onLoad({ filter: /.*/, namespace: "node-stub" }, (args) => ({
      contents: `class Unavailable { constructor() { throw new Error(${JSON.stringify(`${args.path} is not available in the browser`)}); } }
module.exports = { Duplex: Unavailable, WebSocket: Unavailable, default: {} };`,
      loader: "js",
    }));
  },
};

export async function buildConsole(outDir = DEFAULT_OUT_DIR): Promise<ConsoleBuild> {
  const assets = path.join(outDir, "assets");
  await rm(outDir, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [path.join(APP_DIR, "main.ts")],
    outdir: assets,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    minify: true,
    sourcemap: false,
    metafile: true,
    legalComments: "none",
    chunkNames: "[name]-[hash]",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [nodeStub],
    logLevel: "silent",
  });
  await copyFile(path.join(APP_DIR, "index.html"), path.join(outDir, "index.html"));
  const outputs = [
    path.join(outDir, "index.html"),
    ...Object.keys(result.metafile.outputs).map((o) => path.resolve(o)),
  ];
  const build: ConsoleBuild = { outDir, ownGzipBytes: 0, terminalGzipBytes: 0, files: [] };
  for (const file of outputs) {
    const bytes = await readFile(file);
    const gzipped = gzipSync(bytes, { level: 9 });
    await writeFile(`${file}.gz`, gzipped);
    build.files.push({ file: path.relative(outDir, file), bytes: bytes.length, gzipBytes: gzipped.length });
    const meta = result.metafile.outputs[path.relative(process.cwd(), file)];
    const xterm = meta && Object.keys(meta.inputs).some((input) => input.includes("node_modules/@xterm/"));
    if (xterm) build.terminalGzipBytes += gzipped.length;
    else build.ownGzipBytes += gzipped.length;
  }
  return build;
}

if (import.meta.filename === process.argv[1]) {
  const build = await buildConsole(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  for (const f of build.files)
    console.log(
      `${f.file.padEnd(40)} ${String(f.bytes).padStart(9)} B  ${String(f.gzipBytes).padStart(8)} B gzipped`,
    );
  console.log(
    `console's own code: ${(build.ownGzipBytes / 1024).toFixed(1)} KB gzipped (budget 300 KB); xterm.js: ${(build.terminalGzipBytes / 1024).toFixed(1)} KB gzipped`,
  );
}
