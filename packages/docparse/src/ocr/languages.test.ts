import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import { OCR_LANGUAGES } from "@svc/contract";
import sharp from "sharp";
import { decodeImage } from "../images/decode.ts";
import { parseDocument } from "../index.ts";
import { isRightToLeft, latinLanguage, refineWithinScript } from "./languages.ts";
import { recognizePage } from "./recognize-page.ts";
import { confidentPart, weakRegions } from "./regions.ts";
import { parseOsd, tesseractCli, tesseractInstallation } from "./tesseract.ts";
import { renderParagraphsPage, renderTextPage } from "./test-support.ts";
import { parseTesseractTsv, toRunsAndLines } from "./tsv.ts";
import type { WordReader } from "./word-reader.ts";

/** The languages the script tests read in (scripts/install.sh installs them, and the Noto fonts they are drawn in). */
const NEEDED = ["eng", "osd", "chi_sim", "chi_tra", "kor", "ara", "jpn", "jpn_vert", "rus", "hin"];
const installed = (await tesseractInstallation())?.languages ?? [];
const missing = NEEDED.filter((code) => !installed.includes(code));
// Without the language data the OCR tests skip, except in CI, where scripts/install.sh must have installed it.
const skip = missing.length > 0 && !process.env.CI ? `tesseract lacks ${missing.join(", ")}` : false;

const squeeze = (text: string) => text.replace(/\s+/g, "");

async function parsePng(png: Buffer, ocrLanguages: string[] = []): Promise<string> {
  const { result } = await parseDocument({
    bytes: png,
    mimeType: "image/png",
    options: { parsing: { ocr_languages: ocrLanguages as never } },
  });
  return result.markdown;
}

/** Characters of `expected` found in order in `actual` (longest common subsequence), as a share of `expected`. */
function orderedShare(expected: string, actual: string): number {
  const a = [...expected];
  const b = [...actual];
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const char of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      row[j] = char === b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], row[j - 1]);
    }
    previous = row;
  }
  return a.length === 0 ? 1 : previous[b.length] / a.length;
}

describe("language rules", () => {
  test("a Latin page's language comes from its common words and marks; English stays English", () => {
    assert.equal(latinLanguage("The committee met on Tuesday to review the budget of the library."), "eng");
    assert.equal(
      latinLanguage("Le comité s'est réuni mardi pour examiner le budget de la bibliothèque et les"),
      "fra",
    );
    assert.equal(
      latinLanguage("Der Ausschuss hat sich am Dienstag getroffen, um den Haushalt und die"),
      "deu",
    );
    assert.equal(
      latinLanguage("El comité se reunió el martes para revisar el presupuesto de la red y los"),
      "spa",
    );
    assert.equal(
      latinLanguage("Ủy ban đã họp vào sáng thứ Ba để xem xét ngân sách của mạng lưới thư viện"),
      "vie",
    );
    assert.equal(latinLanguage(""), "eng");
  });

  test("letters only one language of a script has refine it; others leave it", () => {
    assert.equal(refineWithinScript("rus", "Комітет зібрався у вівторок і розглянув їхній бюджет, є"), "ukr");
    assert.equal(refineWithinScript("rus", "Комитет собрался во вторник утром"), null);
    assert.equal(
      refineWithinScript("ara", "کمیته روز سه‌شنبه گرد هم آمد تا بودجه را بررسی کند پژوهش چگونه گزارش"),
      "fas",
    );
    assert.equal(refineWithinScript("ara", "اجتمعت اللجنة صباح يوم الثلاثاء"), null);
  });

  test("OSD's report names the script; Arabic and Hebrew words run right to left", () => {
    const guess = parseOsd(
      "Page number: 0\nOrientation in degrees: 0\nRotate: 0\nOrientation confidence: 14.41\nScript: Han\nScript confidence: 0.76\n",
    );
    assert.deepEqual(guess, { rotation: 0, confidence: 14.41, script: "Han", scriptConfidence: 0.76 });
    assert.equal(isRightToLeft("اللجنة"), true);
    assert.equal(isRightToLeft("שלום,"), true);
    assert.equal(isRightToLeft("2024"), false);
    assert.equal(isRightToLeft("budget"), false);
  });

  test("the plain text's spaces join a line's words that OCR split; unspaced scripts join by gap", () => {
    const row = (word: number, left: number, text: string) =>
      ["5", "1", "1", "1", "1", String(word), String(left), "10", "40", "40", "90", text].join("\t");
    const line = ["4", "1", "1", "1", "1", "0", "0", "10", "400", "40", "-1", ""].join("\t");
    // Korean syllables read as words, then the program's text with the real word spaces.
    const korean = [line, row(1, 0, "우"), row(2, 45, "리는"), row(3, 130, "오늘"), "우리는 오늘", ""].join(
      "\n",
    );
    assert.deepEqual(
      parseTesseractTsv(korean).words.map((w) => w.text),
      ["우리는", "오늘"],
    );
    // Without the text (tesseract.js), Chinese pieces close together are one word; Latin words stay apart.
    const chinese = [line, row(1, 0, "我们"), row(2, 60, "今天"), row(3, 170, "and"), row(4, 215, "so")].join(
      "\n",
    );
    const page = parseTesseractTsv(chinese);
    assert.deepEqual(
      page.words.map((w) => w.text),
      ["我们今天", "and", "so"],
    );
    const { runs } = toRunsAndLines(
      parseTesseractTsv([line, row(1, 0, "שלום"), row(2, 50, "42")].join("\n")),
      1,
    );
    assert.deepEqual(
      runs.map((r) => r.dir),
      ["rtl", "ltr"],
    );
  });
});

test("a page less its weak paragraphs is what judges its language, when enough of it is left", () => {
  const word = (block: number, conf: number, text: string) => ({
    block,
    paragraph: 1,
    line: 1,
    left: 0,
    top: 0,
    width: 10,
    height: 10,
    conf,
    text,
  });
  const japanese = word(1, 93, "委員会は火曜日の朝に集まり、地域図書館の予算を審議しました。");
  const hindiAsJapanese = word(2, 21, "田明本大人中国国国日本");
  const page = { lines: [], words: [japanese, hindiAsJapanese, word(2, 25, "中山田川大日")] };
  assert.deepEqual(confidentPart(page)?.words, [japanese]);
  // No weak paragraph: nothing to leave out.
  assert.equal(confidentPart({ lines: [], words: [japanese] }), null);
  // A page weak almost everywhere is judged whole (its language may be wrong).
  const weakPage = {
    lines: [],
    words: [word(1, 90, "本日"), hindiAsJapanese, word(3, 30, "川大日山田中本人国")],
  };
  assert.equal(confidentPart(weakPage), null);
});

test("paragraphs read weakly, with enough characters for OSD, are the regions read again", () => {
  const word = (block: number, paragraph: number, conf: number, text: string) => ({
    block,
    paragraph,
    line: 1,
    left: 0,
    top: 0,
    width: 10,
    height: 10,
    conf,
    text,
  });
  const page = {
    lines: [],
    words: [
      word(1, 1, 96, "Комитет собрался во вторник"),
      word(2, 1, 12, "НЕтЕЖЕРЯЯ,"),
      word(2, 1, 8, "НУР ИНЕЕЕАЯЕ"),
      word(2, 2, 20, "ЖЕ"),
      word(3, 1, 30, "short but weak and long enough"),
    ],
  };
  const regions = weakRegions(page);
  // The confident paragraph and the weak one too short to name are left; the longest weak one comes first.
  assert.deepEqual(
    regions.map((r) => [r.block, r.paragraph, Math.round(r.confidence)]),
    [
      [3, 1, 30],
      [2, 1, 10],
    ],
  );
});

describe("OCR in every script", { skip }, () => {
  test("every language parsing_options.ocr_languages accepts is installed (scripts/install.sh)", () => {
    const absent = OCR_LANGUAGES.filter((code) => !installed.includes(code));
    assert.deepEqual(absent, [], `run scripts/install.sh: tesseract lacks ${absent.join(", ")}`);
  });

  // Spaces only where the page may wrap a line (renderTextPage wraps at spaces); the comparison ignores them.
  const CHINESE = "我们今天在图书馆开会讨论了新的预算。 这个城市的交通越来越方便， 很多人每天坐地铁上班。 ";
  const ARABIC = "اجتمعت اللجنة صباح يوم الثلاثاء لمراجعة الميزانية السنوية لشبكة المكتبات";
  const MIXED =
    "The meeting starts at nine. 보고서를 가져오세요. Please bring the report. 우리는 오늘 회의를 열고";

  test("a Chinese page without a hint reads as Chinese, with no spaces between its characters", {
    timeout: 300_000,
  }, async () => {
    const { png } = await renderTextPage({ text: CHINESE.repeat(3), font: "Noto Sans CJK SC", fontPt: 14 });
    const markdown = await parsePng(png);
    const share = orderedShare(squeeze(CHINESE.repeat(3)), squeeze(markdown));
    assert.ok(share >= 0.9, `${share.toFixed(3)}: ${markdown}`);
    assert.doesNotMatch(markdown, /[\p{Script=Han}] [\p{Script=Han}]/u, markdown);
  });

  test("an Arabic page reads in logical order (right to left), and a Korean line amid English is Korean", {
    timeout: 300_000,
  }, async () => {
    const arabic = await renderTextPage({ text: ARABIC.repeat(3), font: "Noto Sans Arabic", fontPt: 14 });
    const arabicMarkdown = await parsePng(arabic.png);
    // Logical order: the first words of the sentence come first in the text.
    assert.ok(arabicMarkdown.indexOf("اجتمعت") >= 0, arabicMarkdown);
    assert.ok(arabicMarkdown.indexOf("اجتمعت") < arabicMarkdown.indexOf("الميزانية"), arabicMarkdown);
    const share = orderedShare(squeeze(ARABIC.repeat(3)), squeeze(arabicMarkdown));
    assert.ok(share >= 0.9, `${share.toFixed(3)}: ${arabicMarkdown}`);

    const mixed = await renderTextPage({ text: MIXED.repeat(4), font: "Noto Sans CJK KR", fontPt: 14 });
    const mixedMarkdown = await parsePng(mixed.png);
    assert.match(mixedMarkdown, /보고서를/, mixedMarkdown);
    assert.match(mixedMarkdown, /Please bring the report/, mixedMarkdown);
  });

  test("a page with a Russian paragraph and a Chinese one reads each in its own script", {
    timeout: 300_000,
  }, async () => {
    const russian =
      "Комитет собрался во вторник утром, чтобы рассмотреть годовой бюджет региональной библиотечной сети.";
    const chinese =
      "委员会于星期二上午开会，审议地区图书馆网络的年度预算。司库解释说，印刷图书的支出已连续第三年下降。";
    const png = await renderParagraphsPage([
      { text: russian, font: "Noto Sans" },
      { text: chinese, font: "Noto Sans CJK SC" },
    ]);
    const markdown = await parsePng(png);
    const [first, second] = [squeeze(russian), squeeze(chinese)].map((text) =>
      orderedShare(text, squeeze(markdown)),
    );
    assert.ok(first >= 0.9 && second >= 0.9, `${first.toFixed(3)} ${second.toFixed(3)}: ${markdown}`);
    // The Chinese paragraph is not read as Cyrillic letters, nor the Russian one as Chinese characters.
    const split = markdown.indexOf("委员会");
    assert.ok(split > markdown.indexOf("бюджет"), markdown);
    assert.doesNotMatch(markdown.slice(0, split), /\p{Script=Han}/u, markdown);
    assert.doesNotMatch(markdown.slice(split), /\p{Script=Cyrillic}/u, markdown);
  });

  test("a Hindi paragraph beside a Japanese one is read in Hindi alone, without full-page trials of other languages", {
    timeout: 600_000,
  }, async () => {
    const hindi =
      "समिति ने मंगलवार सुबह क्षेत्रीय पुस्तकालय नेटवर्क के वार्षिक बजट की समीक्षा करने के लिए बैठक की। कोषाध्यक्ष ने बताया कि छपी हुई किताबों पर खर्च लगातार तीसरे साल घटा है।";
    const japanese =
      "委員会は火曜日の朝に集まり、地域図書館ネットワークの年間予算を審議しました。会計担当者は、印刷された本への支出が三年連続で減少したと説明しました。";
    const png = await renderParagraphsPage([
      { text: hindi, font: "Noto Sans Devanagari" },
      { text: japanese, font: "Noto Sans CJK JP" },
    ]);
    // Every pass the page costs, counted through the reader (wall time is no measure on a loaded machine).
    const passes: string[] = [];
    const counting: WordReader = {
      ...tesseractCli,
      readWords: (image, dpi, context) => {
        passes.push(context.language);
        return tesseractCli.readWords(image, dpi, context);
      },
      detectOrientation: (image, dpi, context) => {
        passes.push("osd");
        return tesseractCli.detectOrientation?.(image, dpi, context) ?? Promise.resolve(null);
      },
    };
    const [raster] = await decodeImage(png);
    const page = await recognizePage(raster, counting);
    const text = squeeze(page.runs.map((run) => run.text).join(""));
    for (const expected of [hindi, japanese]) {
      const share = orderedShare(squeeze(expected), text);
      assert.ok(share >= 0.9, `${share.toFixed(3)} ${passes.join(" ")}: ${text}`);
    }
    // The English pass, OSD, Japanese, OSD on the weak paragraph, Hindi on it, and the missed-ink pass: the weak
    // Hindi paragraph no longer sends the page through the other East Asian, vertical and probe languages
    // (22 passes before).
    assert.ok(passes.length <= 8, `${passes.length} passes: ${passes.join(" ")}`);
    assert.ok(!passes.some((language) => language.includes("_vert")), passes.join(" "));
  });

  test("vertical Japanese reads down its columns, the columns from the right", {
    timeout: 600_000,
  }, async () => {
    const text =
      "委員会は火曜日の朝に集まり、地域図書館の年間予算を審議しました。会計担当者は、印刷された本への支出が減少したと説明しました。";
    const dpi = 300;
    const [width, height] = [Math.round(8.27 * dpi), Math.round(11.7 * dpi)];
    const canvas = createCanvas(width, height);
    const context = canvas.getContext("2d");
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, width, height);
    context.fillStyle = "#000000";
    const px = (14 * dpi) / 72;
    context.font = `${px}px "Noto Sans CJK JP"`;
    const perColumn = Math.floor((height - 2 * dpi) / (px * 1.05));
    [...text].forEach((char, i) => {
      const column = Math.floor(i / perColumn);
      const row = i % perColumn;
      context.fillText(char, width - dpi - column * px * 1.6 - px, dpi + (row + 1) * px * 1.05);
    });
    const png = await sharp(canvas.toBuffer("image/png")).greyscale().withDensity(dpi).png().toBuffer();
    const markdown = await parsePng(png);
    const share = orderedShare(squeeze(text), squeeze(markdown));
    assert.ok(share >= 0.85, `${share.toFixed(3)}: ${markdown}`);
  });

  test("ocr_languages overrides detection: a Chinese page read as English is not Chinese", {
    timeout: 300_000,
  }, async () => {
    const { png } = await renderTextPage({ text: CHINESE.repeat(2), font: "Noto Sans CJK SC", fontPt: 14 });
    const markdown = await parsePng(png, ["eng"]);
    assert.doesNotMatch(markdown, /[\p{Script=Han}]{4}/u, markdown);
  });
});
