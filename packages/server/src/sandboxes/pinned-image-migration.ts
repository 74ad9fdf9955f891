import type { Migration } from "../store/migration.ts";

/**
 * The image a snapshot's or template's disk lies over, pinned to the manifest digest its pull got
 * (`registry/repository@sha256:…`), beside `base_image`, the reference as the user gave it. Null for rows made
 * before (their sandboxes start from `base_image`, as they did) and for images with nothing to pin.
 * The version leaves room below it for migrations of other areas.
 */
export const pinnedImageMigration: Migration = {
  version: 35,
  name: "templates and snapshots pinned to an image digest",
  sql: `
    ALTER TABLE sandbox_snapshots ADD COLUMN pinned_image TEXT;
    ALTER TABLE sandbox_templates ADD COLUMN pinned_image TEXT;
  `,
};
