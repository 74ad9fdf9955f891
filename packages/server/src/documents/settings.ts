/**
 * Settings of the documents service: uploads, parse workers, leases. Defaults here (the server's configuration
 * takes its defaults of the same settings from them); the configuration passes overrides through AppDeps.documents.
 */
export interface DocumentsSettings {
  /** Largest uploaded or fetched file, in bytes (413 FILE_TOO_LARGE beyond). */
  maxFileBytes: number;
  /** Parse workers in this process; 0 serves the API without running jobs here. */
  workers: number;
  /** How long a claimed job stays a worker's without a heartbeat; a dead worker's job is claimed again after it. */
  leaseSecs: number;
  /** Claims of one job that ended with its worker dying, before the job ends `failure`. */
  maxAttempts: number;
  /** Longest one parse may run before its worker is stopped and the job ends `failure`. */
  jobTimeoutSecs: number;
  /** Heap limit of each parse worker thread, in MiB; a parse that exceeds it ends its worker, not the server. */
  workerMemoryMb: number;
  /** How often an idle worker looks for jobs created by other hosts or left by dead workers, in milliseconds. */
  pollIntervalMs: number;
  /** Longest wait for a file_url download, in seconds. */
  fetchTimeoutSecs: number;
}

export const DOCUMENTS_DEFAULTS: DocumentsSettings = {
  maxFileBytes: 100 * 1024 * 1024,
  workers: 2,
  leaseSecs: 30,
  maxAttempts: 3,
  jobTimeoutSecs: 600,
  // From 2048 MiB up V8 lets the heap grow 4 times its live size between full collections; at 1024 it allows
  // about 1.7 times, and a large PDF's parse ran twice as many full collections (56 against 73 CPU ms a page).
  workerMemoryMb: 2048,
  pollIntervalMs: 1000,
  fetchTimeoutSecs: 60,
};

const MINIMUMS: Record<keyof DocumentsSettings, number> = {
  maxFileBytes: 1,
  workers: 0,
  leaseSecs: 1,
  maxAttempts: 1,
  jobTimeoutSecs: 1,
  workerMemoryMb: 16,
  pollIntervalMs: 10,
  fetchTimeoutSecs: 1,
};

/** The defaults with the given overrides; a value that is not a number at or above its minimum is an error. */
export function documentsSettings(overrides: Partial<DocumentsSettings> = {}): DocumentsSettings {
  const settings = { ...DOCUMENTS_DEFAULTS };
  for (const [key, value] of Object.entries(overrides) as [keyof DocumentsSettings, number | undefined][]) {
    if (value === undefined) continue;
    if (!(key in MINIMUMS)) throw new Error(`unknown documents setting ${key}`);
    if (typeof value !== "number" || !Number.isFinite(value) || value < MINIMUMS[key]) {
      throw new Error(`documents setting ${key} must be a number of at least ${MINIMUMS[key]}; got ${value}`);
    }
    settings[key] = value;
  }
  return settings;
}
