/**
 * Fails when the TypeScript sources import each other in a cycle. Every relative `import`/`export ... from`
 * counts, type-only ones too: a cycle of types is still two files that cannot be read apart, and the fix is the
 * same (move the shared part down into a file both import). Run by `npm run check`; takes well under a second.
 *
 * Usage: node scripts/import-cycles.ts [root ...]   (default: packages)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Cycles known and left for their owner (none today), each as its files joined by spaces (sorted, relative to
 * the repository).
 */
const KNOWN_CYCLES = new Set<string>();

/** Static imports and re-exports with a relative specifier; `import("...")` expressions are loaded lazily and skipped. */
const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']/gm;
const SIDE_EFFECT_IMPORT = /^\s*import\s+["'](\.{1,2}\/[^"']+)["']/gm;

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) sourceFiles(full, into);
    else if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) into.push(full);
  }
  return into;
}

/** The files each file imports, restricted to files under the scanned roots. */
export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = new Set<string>();
    for (const pattern of [IMPORT, SIDE_EFFECT_IMPORT]) {
      for (const match of text.matchAll(pattern)) {
        const target = path.resolve(path.dirname(file), match[1]);
        if (known.has(target)) targets.add(target);
      }
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Each strongly connected set of two or more files (Tarjan's algorithm), as a list of files. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

if (import.meta.main) {
  const roots = process.argv.slice(2);
  const scanned = (roots.length > 0 ? roots : ["packages"]).filter((root) => existsSync(root));
  const files = scanned.flatMap((root) => sourceFiles(path.resolve(root)));
  const found = cycles(importGraph(files)).filter(
    (component) => !KNOWN_CYCLES.has(component.map((file) => path.relative(process.cwd(), file)).join(" ")),
  );
  for (const component of found) {
    console.error(`import cycle among ${component.length} files:`);
    for (const file of component) console.error(`  ${path.relative(process.cwd(), file)}`);
  }
  if (found.length > 0) {
    console.error(
      "break it by moving what the files share into a file they both import (a domain's migration imports the " +
        "Migration type from store/migration.ts, not from the list in store/migrations.ts)",
    );
    process.exit(1);
  }
}
