/**
 * Quantities as table cells print them: an amount (a whole or decimal number, a fraction such as `1/2` or `½`, a
 * mixed number `1 ½`, a range `2–3`) and a unit after it (`200 ml`, `3 EL`, `1/2 tsp`, `100 g`, `5 min`, `2 GB`).
 * A column of them (an ingredients list, a specification's values) is as much a column of figures as one of bare
 * numbers. The cell must be the quantity alone: a sentence holding one ("add 200 ml of milk") is no quantity.
 */

/** Vulgar fraction characters. */
const FRACTION_CHARS = "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞";

/** One amount: `3`, `1.5`, `1,5`, `1/2`, `½`, `1½`, `1 ½`, `1 1/2`. */
const AMOUNT = `(?:\\d+(?:[.,]\\d+)?(?:\\s?(?:[${FRACTION_CHARS}]|\\d+\\/\\d+))?|\\d+\\/\\d+|[${FRACTION_CHARS}])`;

/**
 * Units, as printed after an amount: SI and common measures (length, mass, volume, time, temperature, energy,
 * power, data, frequency), kitchen measures in English, German, French, Spanish, Italian and Dutch abbreviations,
 * and counted packs (`Pck.`, `pkg`, `Stk.`). Matched whole and case-sensitively where case tells two units apart
 * (`m` metre, `M` mega alone is no unit); a trailing period is allowed.
 */
const UNITS = [
  // Length, area, volume, mass.
  "mm|cm|dm|m|km|µm|μm|nm|in|ft|yd|mi|m²|m³|cm²|cm³|km²|qm|sqm|sq ft|ha",
  "mg|g|kg|t|µg|μg|oz|lb|lbs|st",
  "ml|mL|cl|cL|dl|dL|l|L|hl|µl|μl|ccm|fl oz|fl. oz|pt|qt|gal",
  // Time, temperature, energy, power, electricity, pressure, frequency, speed, data.
  "s|sec|ms|µs|min|mins|h|hr|hrs|Std|d|wk|°|°C|°F|℃|℉|K",
  "J|kJ|MJ|cal|kcal|Wh|kWh|MWh|W|kW|MW|GW|hp|PS|V|kV|mV|A|mA|Ah|mAh|Ω|kΩ|Pa|kPa|MPa|hPa|bar|mbar|psi",
  "Hz|kHz|MHz|GHz|rpm|km/h|m/s|mph|kn|B|kB|KB|MB|GB|TB|bit|kbit|Mbit|Gbit|Mbps|Gbps|dB|dpi|px|pt",
  // Kitchen measures: English, German, French, Spanish, Italian, Dutch.
  "tsp|tsps|tbsp|tbsps|tbs|tbl|Tbsp|T|c|cup|cups|pinch|dash|clove|cloves|slice|slices|can|cans|stick|sticks",
  "EL|TL|Msp|Pr|Prise|Prisen|Bd|Bund|Pck|Pkg|pkg|Pkt|Stk|Stck|Scheibe|Scheiben|Zehe|Zehen|Becher|Tasse|Tassen",
  "c\\. à s|c\\. à c|càs|càc|cs|cc|cda|cdas|cdta|cdtas|cucchiaio|cucchiai|cucchiaino|cucchiaini|el|tl|snufje",
].join("|");

/** Amount, optional range to a second amount, the unit, nothing else (parentheses around it allowed). */
const QUANTITY = new RegExp(
  `^(?:ca\\.?\\s?|approx\\.?\\s?|~\\s?|≈\\s?)?${AMOUNT}(?:\\s?[-–—]\\s?${AMOUNT})?\\s?(?:${UNITS})\\.?$`,
  "u",
);

/** A fraction or mixed number alone (`1/2`, `½`, `1 ½`): an amount with its unit in another column. */
const FRACTION = new RegExp(`^(?:\\d+\\s?)?(?:[${FRACTION_CHARS}]|\\d+\\/\\d+)$`, "u");

/** Whether a cell's text is a quantity: an amount with a unit, or a fraction alone. */
export function isQuantity(text: string): boolean {
  const t = text
    .trim()
    .replace(/^\((.*)\)$/u, "$1")
    .trim();
  return t !== "" && t.length <= 24 && (QUANTITY.test(t) || FRACTION.test(t));
}
