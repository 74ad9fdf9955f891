import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The font families test documents are laid out in, each as the files its Debian package installs
 * (scripts/install.sh test installs them). Families with different metrics: a check that passes in each shows
 * that a value does not depend on the machine's fonts.
 */
export const FONT_FAMILIES = {
  "DejaVu Sans": {
    dir: "/usr/share/fonts/truetype/dejavu",
    files: /^DejaVuSans(?:-Bold|-Oblique|-BoldOblique)?\.ttf$/,
    debian: "fonts-dejavu-core",
  },
  "Liberation Sans": {
    dir: "/usr/share/fonts/truetype/liberation",
    files: /^LiberationSans-(?:Regular|Bold|Italic|BoldItalic)\.ttf$/,
    debian: "fonts-liberation",
  },
  "Liberation Serif": {
    dir: "/usr/share/fonts/truetype/liberation",
    files: /^LiberationSerif-(?:Regular|Bold|Italic|BoldItalic)\.ttf$/,
    debian: "fonts-liberation",
  },
} as const;
export type FontFamily = keyof typeof FONT_FAMILIES;
export const FONT_FAMILY_NAMES = Object.keys(FONT_FAMILIES) as FontFamily[];

/** The files of a family, or an error naming the package that installs them. */
function familyFiles(family: FontFamily): string[] {
  const { dir, files, debian } = FONT_FAMILIES[family];
  const found = existsSync(dir) ? readdirSync(dir).filter((name) => files.test(name)) : [];
  if (found.length === 0) {
    throw new Error(
      `the font family ${family} is not installed (Debian ${debian}; run scripts/install.sh test)`,
    );
  }
  return found.map((name) => path.join(dir, name));
}

/** The family characters missing from the chosen one are drawn in (checkboxes, arrows...): the widest here. */
const FALLBACK: FontFamily = "DejaVu Sans";

/**
 * An environment in which LibreOffice (through fontconfig) sees the given family, and DejaVu Sans only for the
 * characters it lacks, and no other font: every text of a converted document is laid out in that family whatever
 * the document names and whatever the machine has installed. The configuration, the font cache and soffice's
 * temporary files (`lu*.tmp`, which a killed or timed-out soffice leaves behind) live under `dir`, so removing it
 * leaves nothing in /tmp.
 *
 * @example
 * execFileSync("soffice", [...], { env: fontFamilyEnv("Liberation Sans", "/tmp/job/fonts") });
 */
export function fontFamilyEnv(family: FontFamily, dir: string): NodeJS.ProcessEnv {
  const files = [...new Set([...familyFiles(family), ...familyFiles(FALLBACK)])];
  const fonts = path.join(dir, "fonts");
  mkdirSync(fonts, { recursive: true });
  for (const file of files) {
    const link = path.join(fonts, path.basename(file));
    if (!existsSync(link)) symlinkSync(file, link);
  }
  const config = path.join(dir, "fonts.conf");
  writeFileSync(
    config,
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
      "<fontconfig>",
      `  <dir>${fonts}</dir>`,
      `  <cachedir>${path.join(dir, "cache")}</cachedir>`,
      // Whatever family is asked for, the chosen one comes first.
      '  <match target="pattern">',
      `    <edit name="family" mode="prepend" binding="strong"><string>${family}</string></edit>`,
      "  </match>",
      "</fontconfig>",
      "",
    ].join("\n"),
  );
  const temporary = path.join(dir, "tmp");
  mkdirSync(temporary, { recursive: true });
  return { ...process.env, FONTCONFIG_FILE: config, TMPDIR: temporary };
}
