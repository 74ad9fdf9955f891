/**
 * Spreadsheet number formats: a cell's stored value rendered as the spreadsheet shows it, from the built-in
 * format ids and custom format codes: General, fixed decimals, thousands separators, percentages, scientific,
 * currency and literal text, dates and times (1900 and 1904 date systems), and text sections (`@`).
 */
const BUILT_IN: Record<number, string> = {
  0: "General",
  1: "0",
  2: "0.00",
  3: "#,##0",
  4: "#,##0.00",
  5: '"$"#,##0_);("$"#,##0)',
  6: '"$"#,##0_);[Red]("$"#,##0)',
  7: '"$"#,##0.00_);("$"#,##0.00)',
  8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
  9: "0%",
  10: "0.00%",
  11: "0.00E+00",
  12: "# ?/?",
  13: "# ??/??",
  14: "m/d/yyyy",
  15: "d-mmm-yy",
  16: "d-mmm",
  17: "mmm-yy",
  18: "h:mm AM/PM",
  19: "h:mm:ss AM/PM",
  20: "h:mm",
  21: "h:mm:ss",
  22: "m/d/yyyy h:mm",
  37: "#,##0_);(#,##0)",
  38: "#,##0_);[Red](#,##0)",
  39: "#,##0.00_);(#,##0.00)",
  40: "#,##0.00_);[Red](#,##0.00)",
  45: "mm:ss",
  46: "[h]:mm:ss",
  47: "mm:ss.0",
  48: "##0.0E+0",
  49: "@",
};

/** The format code of a built-in id, or undefined. */
export function builtInFormat(id: number): string | undefined {
  return BUILT_IN[id];
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** `General`: integers as they are, other numbers to 10 significant digits, as a spreadsheet shows them. */
export function formatGeneral(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e11 || abs < 1e-9)) {
    const [mantissa, power] = value.toExponential(5).split("e");
    const sign = power.startsWith("-") ? "-" : "+";
    return `${mantissa.replace(/\.?0+$/, "")}E${sign}${pad(Math.abs(Number(power)), 2)}`;
  }
  return String(Number.parseFloat(value.toPrecision(10)));
}

/** Splits a format code into its `;` sections, ignoring `;` inside quotes. */
function sections(code: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < code.length; i++) {
    const char = code[i];
    if (char === '"') quoted = !quoted;
    if (char === "\\" && !quoted) {
      current += char + (code[i + 1] ?? "");
      i++;
      continue;
    }
    if (char === ";" && !quoted) {
      out.push(current);
      current = "";
    } else current += char;
  }
  out.push(current);
  return out;
}

/** Removes what does not print: colours and conditions, padding (`_x`), repeat fills (`*x`). */
function cleanSection(section: string): string {
  return section
    .replace(/\[(Red|Black|Blue|Cyan|Green|Magenta|White|Yellow|Color\s*\d+)\]/gi, "")
    .replace(/\[[<>=][^\]]*\]/g, "")
    .replace(/\[\$([^\]-]*)(-[^\]]*)?\]/g, (_, symbol: string) => (symbol ? `"${symbol}"` : ""))
    .replace(/_./g, " ")
    .replace(/\*./g, "");
}

/** The format code with quoted and escaped literals blanked, to look for tokens. */
function tokensOnly(section: string): string {
  return section.replace(/"[^"]*"/g, "").replace(/\\./g, "");
}

/** Whether a format code formats dates or times. */
export function isDateFormat(code: string): boolean {
  const first = tokensOnly(cleanSection(sections(code)[0] ?? "")).replace(/\[h+\]|\[m+\]|\[s+\]/gi, "h");
  return /[ymdhs]/i.test(first) && !/[0#?]/.test(first.replace(/[ymdhs]+\.0+/gi, ""));
}

/** A serial date of the workbook's date system as UTC parts. */
function serialToDate(serial: number, date1904: boolean): Date {
  // 1900 system: serial 1 is 1900-01-01 and serial 60 the fictitious 1900-02-29 kept for compatibility, so
  // from 61 on the epoch is 1899-12-30. Rounded to the second, as a spreadsheet shows times.
  const epoch = date1904
    ? Date.UTC(1904, 0, 1)
    : serial < 60
      ? Date.UTC(1899, 11, 31)
      : Date.UTC(1899, 11, 30);
  return new Date(epoch + Math.round(serial * 86_400) * 1000);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

function formatDate(serial: number, section: string, date1904: boolean): string {
  const date = serialToDate(serial, date1904);
  const hasAmPm = /AM\/PM|A\/P/i.test(section);
  let out = "";
  let i = 0;
  /** Whether the previous date token was hours (so `m` means minutes). */
  let afterHours = false;
  const lower = section.toLowerCase();
  while (i < section.length) {
    const char = section[i];
    const low = lower[i];
    if (char === '"') {
      const close = section.indexOf('"', i + 1);
      out += section.slice(i + 1, close === -1 ? undefined : close);
      i = close === -1 ? section.length : close + 1;
      continue;
    }
    if (char === "\\") {
      out += section[i + 1] ?? "";
      i += 2;
      continue;
    }
    if (lower.startsWith("am/pm", i)) {
      out += date.getUTCHours() < 12 ? "AM" : "PM";
      i += 5;
      continue;
    }
    if (lower.startsWith("a/p", i)) {
      out += date.getUTCHours() < 12 ? "A" : "P";
      i += 3;
      continue;
    }
    if (char === "[") {
      const close = section.indexOf("]", i);
      const token = section.slice(i + 1, close).toLowerCase();
      const hours = Math.floor(serial * 24);
      if (token.startsWith("h")) out += pad(hours, token.length);
      else if (token.startsWith("m")) out += pad(Math.floor(serial * 1440), token.length);
      else if (token.startsWith("s")) out += pad(Math.floor(serial * 86400), token.length);
      afterHours = token.startsWith("h");
      i = close === -1 ? section.length : close + 1;
      continue;
    }
    let run = 1;
    while (lower[i + run] === low) run++;
    switch (low) {
      case "y":
        out += run <= 2 ? pad(date.getUTCFullYear() % 100, 2) : String(date.getUTCFullYear());
        break;
      case "d":
        if (run === 1) out += date.getUTCDate();
        else if (run === 2) out += pad(date.getUTCDate(), 2);
        else if (run === 3) out += DAYS[date.getUTCDay()].slice(0, 3);
        else out += DAYS[date.getUTCDay()];
        break;
      case "m": {
        // Minutes right after hours or right before seconds; months otherwise.
        const rest = lower.slice(i + run).replace(/^[^a-z]*/, "");
        const minutes = run <= 2 && (afterHours || rest.startsWith("s"));
        if (minutes) out += run === 1 ? date.getUTCMinutes() : pad(date.getUTCMinutes(), 2);
        else if (run === 1) out += date.getUTCMonth() + 1;
        else if (run === 2) out += pad(date.getUTCMonth() + 1, 2);
        else if (run === 3) out += MONTHS[date.getUTCMonth()].slice(0, 3);
        else if (run === 5) out += MONTHS[date.getUTCMonth()][0];
        else out += MONTHS[date.getUTCMonth()];
        break;
      }
      case "h": {
        let hours = date.getUTCHours();
        if (hasAmPm) hours = hours % 12 === 0 ? 12 : hours % 12;
        out += run === 1 ? hours : pad(hours, 2);
        break;
      }
      case "s": {
        out += run === 1 ? date.getUTCSeconds() : pad(date.getUTCSeconds(), 2);
        break;
      }
      case "0": {
        // Fractions of a second after `ss.`.
        const fraction = (serial * 86400) % 1;
        out += fraction.toFixed(run).slice(2);
        break;
      }
      default:
        out += section.slice(i, i + run);
    }
    if (low !== " " && low !== ":" && low !== "." && low !== "/" && low !== "-") afterHours = low === "h";
    i += run;
  }
  return out;
}

function formatNumberSection(value: number, section: string): string {
  const tokens = tokensOnly(section);
  const percent = (tokens.match(/%/g) ?? []).length;
  let scaled = value * 100 ** percent;
  // Trailing commas after the last digit placeholder divide by a thousand each.
  const trailing = /[0#?](,+)(?![0#?])/.exec(tokens);
  if (trailing) scaled /= 1000 ** trailing[1].length;
  const firstDigit = section.search(/[0#?]/);
  let lastDigit = -1;
  for (let i = section.length - 1; i >= 0; i--) {
    if (/[0#?]/.test(section[i]) && !insideQuotes(section, i)) {
      lastDigit = i;
      break;
    }
  }
  const literal = (text: string) =>
    text
      .replace(/"([^"]*)"/g, "$1")
      .replace(/\\(.)/g, "$1")
      .replace(/,/g, "");
  if (firstDigit === -1 || lastDigit === -1) return literal(section);
  const prefix = literal(section.slice(0, firstDigit));
  const suffix = literal(section.slice(lastDigit + 1));
  const body = section.slice(firstDigit, lastDigit + 1);
  const exponent = /E[+-]/i.exec(body);
  if (exponent) {
    const mantissa = body.slice(0, exponent.index);
    const decimals = (mantissa.split(".")[1] ?? "").replace(/[^0#?]/g, "").length;
    const [digits, power] = Math.abs(scaled).toExponential(decimals).split("e");
    const powerDigits = body.slice(exponent.index + 2).replace(/[^0#]/g, "").length;
    const sign = power.startsWith("-") ? "-" : "+";
    return `${prefix}${digits}E${sign}${pad(Math.abs(Number(power)), powerDigits)}${suffix}`;
  }
  const [integerPart, fractionPart = ""] = body.split(".");
  const decimals = fractionPart.replace(/[^0#?]/g, "").length;
  const minDecimals = fractionPart.replace(/[^0]/g, "").length;
  const grouped = integerPart.includes(",");
  const minInteger = integerPart.replace(/[^0]/g, "").length;
  let fixed = Math.abs(scaled).toFixed(decimals);
  if (decimals > minDecimals) {
    // Optional digits (#) drop trailing zeros down to the required ones.
    const [whole, fraction] = fixed.split(".");
    let trimmed = fraction.replace(/0+$/, "");
    if (trimmed.length < minDecimals) trimmed = fraction.slice(0, minDecimals);
    fixed = trimmed ? `${whole}.${trimmed}` : body.includes(".") && minDecimals === 0 ? `${whole}.` : whole;
    if (fixed.endsWith(".")) fixed = fixed.slice(0, -1);
  }
  let [whole, fraction] = fixed.split(".");
  if (whole === "0" && minInteger === 0) whole = "";
  whole = whole.padStart(minInteger, "0");
  if (grouped) whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const number = fraction === undefined ? whole || "0" : `${whole}.${fraction}`;
  return `${prefix}${number}${suffix}`;
}

function insideQuotes(text: string, index: number): boolean {
  let quoted = false;
  for (let i = 0; i < index; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') quoted = !quoted;
  }
  return quoted;
}

/** A numeric cell value rendered through its format code. */
export function formatNumber(value: number, code: string, date1904 = false): string {
  if (!code || /^general$/i.test(code.trim())) return formatGeneral(value);
  const parts = sections(code).map(cleanSection);
  let section = parts[0];
  let negativeSection = false;
  if (value < 0 && parts.length > 1 && parts[1] !== "") {
    section = parts[1];
    negativeSection = true;
  } else if (value === 0 && parts.length > 2 && parts[2] !== "") {
    section = parts[2];
  }
  if (/^general$/i.test(section.trim())) return formatGeneral(value);
  if (isDateFormat(section)) {
    if (value < 0 || value > 2_958_465) return formatGeneral(value);
    return formatDate(value, section, date1904);
  }
  if (!/[0#?]/.test(tokensOnly(section)) && tokensOnly(section).includes("@")) return formatGeneral(value);
  const rendered = formatNumberSection(negativeSection ? Math.abs(value) : value, section);
  const isZero = Number(rendered.replace(/[^0-9.]/g, "")) === 0;
  return value < 0 && !negativeSection && !isZero ? `-${rendered}` : rendered;
}

/** A text cell through its format's text section (`@` replaced by the text), when the format has one. */
export function formatText(text: string, code: string): string {
  const parts = sections(code);
  const section =
    parts.length >= 4 ? parts[3] : parts.length === 1 && parts[0].includes("@") ? parts[0] : null;
  if (section === null) return text;
  return cleanSection(section)
    .replace(/"([^"]*)"/g, "$1")
    .replace(/\\(.)/g, "$1")
    .replace(/@/g, text);
}
