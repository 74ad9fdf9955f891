import type { Migration } from "../store/migration.ts";

/**
 * Each sandbox's start timeline (JSON: when the executor began, and its steps), written when the start ends.
 * The version leaves room below it for migrations of other areas.
 */
export const startTimelineMigration: Migration = {
  version: 27,
  name: "sandbox start timeline",
  sql: `
    ALTER TABLE sandboxes ADD COLUMN start_timeline TEXT;
  `,
};
