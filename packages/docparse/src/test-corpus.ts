import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where the shared test corpus is (public documents with reference outputs, kept outside the repository), for
 * the tests and the evaluation command. Nothing here reads the corpus: a test that needs it passes
 * `{ skip: NO_CORPUS }` and builds its paths with `corpusPath` inside the test, so a clone without the corpus
 * (CI) skips those tests instead of failing them.
 *
 * The corpus is, in order:
 * - `SVC_CORPUS_DIR` when it is set and names an existing directory;
 * - `../shared/corpus` beside the repository's root, when it exists;
 * - absent otherwise. `SVC_CORPUS_DIR=none` forces absence (to check that the tests skip cleanly).
 */

/** The repository's root: this file is `packages/docparse/src/test-corpus.ts`. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

function locateCorpus(): string | null {
  const fromEnv = process.env.SVC_CORPUS_DIR;
  if (fromEnv === "none") return null;
  if (fromEnv && existsSync(fromEnv)) return path.resolve(fromEnv);
  const beside = path.resolve(REPO_ROOT, "../shared/corpus");
  return existsSync(beside) ? beside : null;
}

/** The corpus directory, or null when it is absent. */
export const CORPUS_ROOT: string | null = locateCorpus();

/** Docling's test data (`docling/tests/data`: sources per format and their ground truth), or null. */
export const DOCLING_DATA: string | null = CORPUS_ROOT && path.join(CORPUS_ROOT, "docling/tests/data");

/** Why a test that needs the corpus is skipped, or false when the corpus is there: `{ skip: NO_CORPUS }`. */
export const NO_CORPUS: string | false =
  CORPUS_ROOT === null &&
  (process.env.SVC_CORPUS_DIR === "none"
    ? "no shared corpus (SVC_CORPUS_DIR=none)"
    : "no shared corpus (set SVC_CORPUS_DIR, or put it at ../shared/corpus beside the repository)");

/** A path inside the corpus, e.g. `corpusPath("docling/tests/data", "pdf/sources/multi_page.pdf")`. */
export function corpusPath(...parts: string[]): string {
  if (CORPUS_ROOT === null) {
    throw new Error(`${NO_CORPUS}: cannot read ${path.join(...parts)}`);
  }
  return path.join(CORPUS_ROOT, ...parts);
}
