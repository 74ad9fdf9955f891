/**
 * # daemon-bundle
 *
 * The daemon as sandboxes run it: `packages/daemon/src/main.ts` and everything it imports (the contract, Ajv,
 * ws, …) bundled by esbuild into one ESM JavaScript file. Node then loads one module with no type stripping and
 * no module resolution, which halves the daemon's start-up (~170 → ~85 ms to listen on the host, with a compile
 * cache either way). Native modules stay outside the bundle (NATIVE_EXTERNALS) and load through `require`
 * from the `node_modules` next to the bundle: launch.ts binds it at /opt/svc/app/daemon.mjs, beside
 * /opt/svc/app/node_modules.
 *
 * Built once per content hash of the daemon's inputs (its and the contract's sources and package.json files,
 * the lockfile, this file, esbuild's version) into `<cacheDir>/daemon-<hash>.mjs`; a bundle already there is reused.
 * `node packages/daemon/src/main.ts` stays the way to run the daemon in development and tests.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { DEFAULT_APP_ROOT } from "./launch.ts";

/** Packages loaded with `require` at run time instead of bundled: native addons (and their optional peers). */
export const NATIVE_EXTERNALS = ["node-pty", "bufferutil", "utf-8-validate", "cpu-features", "ssh2"] as const;

/** Workspace packages whose sources go into the bundle. */
const BUNDLED_PACKAGES = ["daemon", "contract"] as const;

/** ESM output still has CommonJS dependencies (Ajv, ws) that `require` builtins and the native externals. */
const BANNER = 'const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);';

/**
 * Node's built-in modules reach the bundle as CommonJS (`process.getBuiltinModule`), not as ESM imports: an ESM
 * import of a built-in builds its ESM facade, which reads every export, and some exports are lazy getters that
 * load or compute more (node:net's and node:http's cost ~10 ms of the daemon's start). As CommonJS, a named
 * import is a property read where it is used.
 */
interface EsbuildPlugin {
  name: string;
  setup(build: {
    onResolve(options: { filter: RegExp }, callback: (args: { path: string }) => unknown): void;
    onLoad(
      options: { filter: RegExp; namespace: string },
      callback: (args: { path: string }) => { contents: string; loader: "js"; resolveDir?: string },
    ): void;
  }): void;
}

const builtinsAsCommonJs: EsbuildPlugin = {
  name: "builtins-as-commonjs",
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: "node-builtin" }));
    build.onLoad({ filter: /.*/, namespace: "node-builtin" }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
  },
};

/**
 * The daemon's request validators compiled at bundle time: `packages/daemon/src/route-validators.ts` (which
 * compiles with Ajv at first use) is replaced in the bundle by a table of Ajv's standalone code for every part
 * of every runtime route, keyed as route-validators.ts keys them. A sandbox then neither loads Ajv nor compiles
 * on its first request (a CPU profile: ~30 ms of a first `run`). Made from this checkout's contract, so only
 * when the bundled checkout is this one.
 */
async function precompiledValidators(): Promise<EsbuildPlugin> {
  const { runtimeRoutes } = await import("@svc/contract/runtime");
  const { routeSchema } = await import("@svc/contract/route-http");
  const { standaloneValidators } = await import("@svc/contract/request-validation");
  const schemas = { body: {} as Record<string, unknown>, text: {} as Record<string, unknown> };
  const table: string[] = [];
  for (const route of Object.values(runtimeRoutes)) {
    const schema = routeSchema(route);
    const parts = [
      ["params", schema.params],
      ["body", schema.body],
      ["querystring", schema.querystring],
    ] as const;
    for (const [part, partSchema] of parts) {
      if (partSchema === undefined) continue;
      const kind = part === "body" ? "body" : "text";
      const name = `v${table.length}`;
      schemas[kind][name] = partSchema;
      table.push(`${JSON.stringify(`${route.method} ${route.path} ${part}`)}: ${kind}.${name}`);
    }
  }
  const modules: Record<string, string> = {
    "validators-body": standaloneValidators(schemas.body, "body"),
    "validators-text": standaloneValidators(schemas.text, "text"),
    "route-validators": [
      'import * as body from "svc-precompiled:validators-body";',
      'import * as text from "svc-precompiled:validators-text";',
      `const table = {${table.join(",")}};`,
      'export function validatorKey(method, path, part) { return method + " " + path + " " + part; }',
      "export function routeValidator(key) {",
      "  const validate = table[key];",
      '  if (!validate) throw new Error("no validator compiled for " + key);',
      "  return validate;",
      "}",
    ].join("\n"),
  };
  const resolveDir = join(DEFAULT_APP_ROOT, "packages/contract");
  return {
    name: "precompiled-validators",
    setup(build) {
      build.onResolve({ filter: /(^|\/)route-validators\.ts$/ }, () => ({
        path: "route-validators",
        namespace: "svc-precompiled",
      }));
      build.onResolve({ filter: /^svc-precompiled:/ }, (args) => ({
        path: args.path.slice("svc-precompiled:".length),
        namespace: "svc-precompiled",
      }));
      build.onLoad({ filter: /.*/, namespace: "svc-precompiled" }, (args) => ({
        contents: modules[args.path] ?? "",
        loader: "js",
        resolveDir,
      }));
    },
  };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Hash of everything the bundle is made from; the bundle's file name carries it. */
export function daemonBundleHash(appRoot: string, esbuildVersion: string): string {
  const hash = createHash("sha256").update(`esbuild ${esbuildVersion}\n`);
  const files = [
    join(appRoot, "package-lock.json"),
    // How the bundle is made (this file's options and plugin) is part of what it is.
    join(appRoot, "packages/server/src/executor/linux/daemon-bundle.ts"),
    ...BUNDLED_PACKAGES.flatMap((p) => [
      join(appRoot, "packages", p, "package.json"),
      ...filesUnder(join(appRoot, "packages", p, "src")).filter((f) => !/\.test\.ts$/.test(f)),
    ]),
  ]
    .filter((f) => existsSync(f))
    .sort();
  for (const file of files) {
    const content = readFileSync(file);
    hash.update(`${relative(appRoot, file)}\0${content.length}\0`).update(content);
  }
  return hash.digest("hex").slice(0, 16);
}

export interface DaemonBundleOptions {
  /** Where bundles live (created if missing). */
  cacheDir: string;
  /** The repository whose daemon is bundled; default: this checkout. */
  appRoot?: string;
}

/** Path of the daemon bundle for the current sources, built if missing. */
export async function ensureDaemonBundle(options: DaemonBundleOptions): Promise<string> {
  const appRoot = options.appRoot ?? DEFAULT_APP_ROOT;
  const esbuild = await import("esbuild");
  const file = join(options.cacheDir, `daemon-${daemonBundleHash(appRoot, esbuild.version)}.mjs`);
  if (existsSync(file)) return file;
  await mkdir(options.cacheDir, { recursive: true, mode: 0o755 });
  const partial = `${file}.${process.pid}.tmp`;
  try {
    await esbuild.build({
      entryPoints: [join(appRoot, "packages/daemon/src/main.ts")],
      absWorkingDir: appRoot,
      outfile: partial,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node24",
      external: [...NATIVE_EXTERNALS],
      plugins: [builtinsAsCommonJs, ...(appRoot === DEFAULT_APP_ROOT ? [await precompiledValidators()] : [])],
      banner: { js: BANNER },
      legalComments: "none",
      // Without comments and whitespace the source is a third smaller, and pure ASCII: V8 keeps a module's source
      // in memory for its whole life, one byte per character, but two for every character once a single one is
      // not Latin-1 (a comment's arrow doubled the old bundle's 2 MB). Identifiers keep their names, for stack
      // traces.
      minifyWhitespace: true,
      minifySyntax: true,
      charset: "ascii",
      logLevel: "silent",
    });
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return file;
}
