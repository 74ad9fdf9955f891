import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A build context tar (plain, made by tar) of these files. */
export function contextTar(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "svc-build-context-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return execFileSync("tar", ["-C", dir, "-cf", "-", "."], { maxBuffer: 64 * 1048576 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
