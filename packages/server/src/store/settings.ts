import type { Db } from "./db.ts";

/** Server-level values (bootstrap state, admin token hash, ...), one string per key. */
export interface SettingsRepository {
  get(key: string): Promise<string | null>;
  /** Sets the value, replacing any earlier one. */
  set(key: string, value: string): Promise<void>;
  /** The value of `key`, set to `value` first when absent; when servers race, all get the first value written. */
  getOrSet(key: string, value: string): Promise<string>;
}

export function createSettingsRepository(db: Db): SettingsRepository {
  return {
    async get(key) {
      const [row] = await db.query<{ value: string }>("SELECT value FROM settings WHERE key = ?", [key]);
      return row ? row.value : null;
    },
    async set(key, value) {
      await db.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
      );
    },
    async getOrSet(key, value) {
      await db.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", [
        key,
        value,
      ]);
      const [row] = await db.query<{ value: string }>("SELECT value FROM settings WHERE key = ?", [key]);
      return row.value;
    },
  };
}
