/**
 * The pages the OCR benches make (ocr-scripts-bench.ts, pp-ocr-bench.ts): known text in each script written as
 * HTML in a Noto font, printed to PDF by LibreOffice and rasterized by `pdftoppm` at 300 dpi (gray PNG), as a
 * clean A4 scan would be; how a reading is scored against the text (1 − CER); and CPU time of a task.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { levenshtein } from "../packages/docparse/src/text/edit-distance.ts";

const run = promisify(execFile);

export interface Sample {
  id: string;
  /** The target group it is measured against (0.95 or 0.90). */
  target: number;
  font: string;
  rtl?: boolean;
  /** Written without spaces between words: whitespace is left out of the comparison. */
  unspaced?: boolean;
  text: string;
  /** A page of several scripts: these paragraphs one under another, each in its own font (text is theirs joined). */
  paragraphs?: { font: string; rtl?: boolean; text: string }[];
}

export const SAMPLES: Sample[] = [
  {
    id: "eng",
    target: 0.95,
    font: "Noto Serif",
    text: "The committee met on Tuesday morning to review the annual budget of the regional library network. The treasurer explained that spending on printed books had fallen for the third year in a row, while the cost of digital subscriptions had risen by almost twelve percent.",
  },
  {
    id: "fra",
    target: 0.95,
    font: "Noto Serif",
    text: "Le comité s'est réuni mardi matin pour examiner le budget annuel du réseau régional des bibliothèques. Le trésorier a expliqué que les dépenses consacrées aux livres imprimés avaient baissé pour la troisième année consécutive, tandis que le coût des abonnements numériques avait augmenté.",
  },
  {
    id: "deu",
    target: 0.95,
    font: "Noto Sans",
    text: "Der Ausschuss trat am Dienstagmorgen zusammen, um den Jahreshaushalt des regionalen Bibliotheksnetzes zu prüfen. Der Schatzmeister erklärte, dass die Ausgaben für gedruckte Bücher im dritten Jahr in Folge gesunken seien, während die Kosten für digitale Abonnements um fast zwölf Prozent gestiegen wären.",
  },
  {
    id: "spa",
    target: 0.95,
    font: "Noto Sans",
    text: "El comité se reunió el martes por la mañana para revisar el presupuesto anual de la red regional de bibliotecas. El tesorero explicó que el gasto en libros impresos había disminuido por tercer año consecutivo, mientras que el coste de las suscripciones digitales había aumentado casi un doce por ciento.",
  },
  {
    id: "vie",
    target: 0.95,
    font: "Noto Sans",
    text: "Ủy ban đã họp vào sáng thứ Ba để xem xét ngân sách hằng năm của mạng lưới thư viện khu vực. Thủ quỹ giải thích rằng chi tiêu cho sách in đã giảm năm thứ ba liên tiếp, trong khi chi phí đăng ký tài liệu số đã tăng gần mười hai phần trăm.",
  },
  {
    id: "rus",
    target: 0.95,
    font: "Noto Sans",
    text: "Комитет собрался во вторник утром, чтобы рассмотреть годовой бюджет региональной библиотечной сети. Казначей объяснил, что расходы на печатные книги сокращаются уже третий год подряд, а стоимость цифровых подписок выросла почти на двенадцать процентов.",
  },
  {
    id: "ukr",
    target: 0.95,
    font: "Noto Sans",
    text: "Комітет зібрався у вівторок вранці, щоб розглянути річний бюджет регіональної мережі бібліотек. Скарбник пояснив, що витрати на друковані книжки зменшуються вже третій рік поспіль, а вартість цифрових передплат зросла майже на дванадцять відсотків.",
  },
  {
    id: "ell",
    target: 0.95,
    font: "Noto Sans",
    text: "Η επιτροπή συνεδρίασε την Τρίτη το πρωί για να εξετάσει τον ετήσιο προϋπολογισμό του περιφερειακού δικτύου βιβλιοθηκών. Ο ταμίας εξήγησε ότι οι δαπάνες για έντυπα βιβλία μειώθηκαν για τρίτη συνεχή χρονιά, ενώ το κόστος των ψηφιακών συνδρομών αυξήθηκε σχεδόν δώδεκα τοις εκατό.",
  },
  {
    id: "chi_sim",
    target: 0.9,
    font: "Noto Sans CJK SC",
    unspaced: true,
    text: "委员会于星期二上午开会，审议地区图书馆网络的年度预算。司库解释说，印刷图书的支出已连续第三年下降，而数字订阅的费用上涨了将近百分之十二。几位委员询问较小的分馆能否共用一个目录和一辆送书车，从而在不关闭任何阅览室的情况下节省开支。",
  },
  {
    id: "chi_tra",
    target: 0.9,
    font: "Noto Sans CJK TC",
    unspaced: true,
    text: "委員會於星期二上午開會，審議地區圖書館網絡的年度預算。司庫解釋說，印刷圖書的支出已連續第三年下降，而數位訂閱的費用上漲了將近百分之十二。幾位委員詢問較小的分館能否共用一個目錄和一輛送書車，從而在不關閉任何閱覽室的情況下節省開支。",
  },
  {
    id: "jpn",
    target: 0.9,
    font: "Noto Sans CJK JP",
    unspaced: true,
    text: "委員会は火曜日の朝に集まり、地域図書館ネットワークの年間予算を審議しました。会計担当者は、印刷された本への支出が三年連続で減少する一方、電子購読の費用はおよそ十二パーセント増えたと説明しました。何人かの委員は、小さな分館が目録と配送車を共有できないかと尋ねました。",
  },
  {
    id: "kor",
    target: 0.9,
    font: "Noto Sans CJK KR",
    text: "위원회는 화요일 아침에 모여 지역 도서관 네트워크의 연간 예산을 검토했습니다. 회계 담당자는 인쇄된 책에 대한 지출이 삼 년 연속 줄어든 반면 디지털 구독 비용은 거의 십이 퍼센트 늘었다고 설명했습니다. 몇몇 위원은 작은 분관들이 목록과 배송 차량을 함께 쓸 수 있는지 물었습니다.",
  },
  {
    id: "ara",
    target: 0.9,
    font: "Noto Naskh Arabic",
    rtl: true,
    text: "اجتمعت اللجنة صباح يوم الثلاثاء لمراجعة الميزانية السنوية لشبكة المكتبات الإقليمية. وأوضح أمين الصندوق أن الإنفاق على الكتب المطبوعة انخفض للسنة الثالثة على التوالي، بينما ارتفعت تكلفة الاشتراكات الرقمية بنحو اثني عشر في المئة.",
  },
  {
    id: "fas",
    target: 0.9,
    font: "Noto Naskh Arabic",
    rtl: true,
    text: "کمیته صبح سه‌شنبه گرد هم آمد تا بودجه سالانه شبکه کتابخانه‌های منطقه را بررسی کند. خزانه‌دار توضیح داد که هزینه کتاب‌های چاپی برای سومین سال پیاپی کاهش یافته، در حالی که هزینه اشتراک‌های دیجیتال نزدیک به دوازده درصد افزایش پیدا کرده است.",
  },
  {
    id: "heb",
    target: 0.9,
    font: "Noto Sans Hebrew",
    rtl: true,
    text: "הוועדה התכנסה ביום שלישי בבוקר כדי לבחון את התקציב השנתי של רשת הספריות האזורית. הגזבר הסביר שההוצאה על ספרים מודפסים ירדה זו השנה השלישית ברציפות, בעוד שעלות המינויים הדיגיטליים עלתה בכמעט שנים עשר אחוזים.",
  },
  {
    id: "hin",
    target: 0.9,
    font: "Noto Sans Devanagari",
    text: "समिति ने मंगलवार सुबह क्षेत्रीय पुस्तकालय नेटवर्क के वार्षिक बजट की समीक्षा करने के लिए बैठक की। कोषाध्यक्ष ने बताया कि छपी हुई किताबों पर खर्च लगातार तीसरे साल घटा है, जबकि डिजिटल सदस्यता की लागत लगभग बारह प्रतिशत बढ़ गई है।",
  },
  {
    id: "ben",
    target: 0.9,
    font: "Noto Sans Bengali",
    text: "কমিটি মঙ্গলবার সকালে আঞ্চলিক গ্রন্থাগার নেটওয়ার্কের বার্ষিক বাজেট পর্যালোচনা করতে বৈঠকে বসে। কোষাধ্যক্ষ জানান যে ছাপা বইয়ের খরচ টানা তৃতীয় বছরের মতো কমেছে, অথচ ডিজিটাল গ্রাহকপদের খরচ প্রায় বারো শতাংশ বেড়েছে।",
  },
  {
    id: "tam",
    target: 0.9,
    font: "Noto Sans Tamil",
    text: "பிராந்திய நூலக வலையமைப்பின் ஆண்டு வரவுசெலவுத் திட்டத்தை ஆய்வு செய்யக் குழு செவ்வாய்க்கிழமை காலை கூடியது. அச்சிடப்பட்ட புத்தகங்களுக்கான செலவு தொடர்ந்து மூன்றாவது ஆண்டாகக் குறைந்துள்ளது என்று பொருளாளர் விளக்கினார்.",
  },
  {
    id: "tha",
    target: 0.9,
    font: "Noto Sans Thai",
    unspaced: true,
    text: "คณะกรรมการประชุมกันเมื่อเช้าวันอังคารเพื่อทบทวนงบประมาณประจำปีของเครือข่ายห้องสมุดในภูมิภาค เหรัญญิกอธิบายว่าค่าใช้จ่ายสำหรับหนังสือฉบับพิมพ์ลดลงเป็นปีที่สามติดต่อกัน ขณะที่ค่าสมาชิกดิจิทัลเพิ่มขึ้นเกือบร้อยละสิบสอง",
  },
];

/** Pages of two scripts in different paragraphs, measured against the lower target of the two. */
function mixed(id: string, parts: Sample[], unspaced = false): Sample {
  return {
    id,
    target: Math.min(...parts.map((p) => p.target)),
    font: parts[0].font,
    unspaced,
    text: parts.map((p) => p.text).join(" "),
    paragraphs: parts.map((p) => ({ font: p.font, rtl: p.rtl, text: p.text })),
  };
}
const sample = (id: string) => SAMPLES.find((s) => s.id === id) as Sample;
SAMPLES.push(
  mixed("rus+chi_sim", [sample("rus"), sample("chi_sim")], true),
  mixed("ara+eng", [sample("ara"), sample("eng")]),
  mixed("ell+kor", [sample("ell"), sample("kor")]),
  mixed("hin+jpn", [sample("hin"), sample("jpn")], true),
);

export const TABLES: string[][][] = [
  [
    ["Item", "Quantity", "Unit price", "Total"],
    ["Copy paper A4", "12", "4.50", "54.00"],
    ["Toner cartridge", "2", "89.90", "179.80"],
    ["Stapler", "5", "7.25", "36.25"],
    ["Envelopes C5", "300", "0.08", "24.00"],
  ],
  [
    ["City", "Population", "Area", "Founded"],
    ["Harbourton", "182,400", "96 km2", "1523"],
    ["Millbrook", "45,210", "31 km2", "1688"],
    ["Eastvale", "9,870", "12 km2", "1801"],
    ["Northgate", "310,050", "140 km2", "1402"],
    ["Riverside", "77,300", "58 km2", "1750"],
  ],
];

export function normalize(text: string, unspaced: boolean): string {
  const plain = text
    .normalize("NFC")
    .replace(/[#*_|`>]/g, " ")
    .replace(/<[^>]+>/g, " ");
  return unspaced ? plain.replace(/\s+/g, "") : plain.replace(/\s+/g, " ").trim();
}

/** 1 − CER: the edit distance between reference and reading, over the reference's length (at least 0). */
export function characterAccuracy(reference: string, read: string): number {
  const a = Uint32Array.from([...reference].map((c) => c.codePointAt(0) ?? 0));
  const b = Uint32Array.from([...read].map((c) => c.codePointAt(0) ?? 0));
  return Math.max(0, 1 - levenshtein(a, b) / Math.max(1, a.length));
}

export function html(sample: Sample): string {
  const escaped = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const paragraphs = (sample.paragraphs ?? [sample])
    .map((p) => {
      const dir = p.rtl ? ' dir="rtl" align="right"' : "";
      return `<p${dir} style="font-family: '${p.font}'">${escaped(p.text)}</p>`;
    })
    .join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><style>@page { size: A4; margin: 2.5cm }
p { font-size: 12pt; line-height: 1.5; margin-bottom: 12pt }</style></head>
<body>${paragraphs}</body></html>`;
}

/** HTML files → PDF (LibreOffice, one run for all, a private profile) → 300 dpi gray PNG per page (pdftoppm). */
export async function renderPages(dir: string, files: Map<string, string>): Promise<Map<string, Buffer>> {
  for (const [id, content] of files) await writeFile(path.join(dir, `${id}.html`), content);
  const profile = `file://${path.join(dir, "profile")}`;
  await run(
    "soffice",
    [
      `-env:UserInstallation=${profile}`,
      "--headless",
      // Imported as a Writer document: the Writer/Web export prints HTML as blank pages.
      "--infilter=HTML (StarWriter)",
      "--convert-to",
      "pdf:writer_pdf_Export",
      "--outdir",
      dir,
      ...[...files.keys()].map((id) => path.join(dir, `${id}.html`)),
    ],
    { timeout: 600_000 },
  );
  const pages = new Map<string, Buffer>();
  for (const id of files.keys()) {
    await run("pdftoppm", [
      "-r",
      "300",
      "-gray",
      "-png",
      "-f",
      "1",
      "-l",
      "1",
      path.join(dir, `${id}.pdf`),
      path.join(dir, id),
    ]);
    const png = (await readdir(dir)).find((name) => name.startsWith(`${id}-`) && name.endsWith(".png"));
    if (!png) throw new Error(`pdftoppm wrote no page for ${id}`);
    pages.set(id, await readFile(path.join(dir, png)));
  }
  return pages;
}

/** CPU seconds this process and its waited-for children (tesseract, soffice...) have used so far. */
export function cpuSeconds(): { own: number; children: number } {
  const usage = process.cpuUsage();
  // /proc/self/stat after the command's closing parenthesis: fields 14 and 15 (cutime, cstime) in clock ticks.
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return {
    own: (usage.user + usage.system) / 1e6,
    children: (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS,
  };
}
const CLOCK_TICKS = Number((await run("getconf", ["CLK_TCK"])).stdout.trim()) || 100;

/** Wall and CPU seconds (ours and children's) of one task. */
export async function measure(task: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const before = cpuSeconds();
  const started = performance.now();
  await task();
  const after = cpuSeconds();
  return {
    wall: (performance.now() - started) / 1000,
    cpu: after.own - before.own + after.children - before.children,
  };
}

/** The text of dense English speed page `i`: the English sample's sentences repeated to fill an A4 page. */
export function speedPageHtml(i: number): string {
  return html({ ...SAMPLES[0], id: `speed${i}`, text: speedPageText(i) });
}

export function speedPageText(i: number): string {
  const english = SAMPLES[0].text;
  const prose = Array.from({ length: 7 }, (_, k) => english.split(". ")[(i + k) % 2]).join(". ");
  return `${prose}. ${english} ${prose}.`;
}
