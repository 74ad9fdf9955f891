/**
 * Cyrillic letters drawn the same as Latin ones, and the Latin letter each looks like. A TeX font of Cyrillic
 * encoding (T2A) set for Latin words maps some of its glyphs to these: a Ukrainian manual's typewriter
 * `article` reads `artіcle` with a Cyrillic `і`, which no reader sees and no search finds.
 */
const LATIN_LOOK: Readonly<Record<string, string>> = {
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ј: "j",
  ѕ: "s",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  І: "I",
  Ј: "J",
  Ѕ: "S",
};

const CYRILLIC = /\p{Script=Cyrillic}/u;
const LATIN = /\p{Script=Latin}/u;

/**
 * A word of Latin letters with a Cyrillic look-alike between two of them (`artіcle`, `Wіndows`) spelt with the
 * Latin letter. Only inside a word all of whose other letters are Latin: a Cyrillic word, or a Latin name with a
 * Cyrillic case ending (`LaTeXу`), keeps its letters.
 */
export function latinHomoglyphs(text: string): string {
  if (!CYRILLIC.test(text)) return text;
  return text.replace(/\p{L}+/gu, (word) => {
    const letters = [...word];
    if (!letters.some((c) => CYRILLIC.test(c))) return word;
    if (letters.some((c) => CYRILLIC.test(c) && LATIN_LOOK[c] === undefined)) return word;
    const latin = (c: string | undefined) => c !== undefined && LATIN.test(c);
    const inside = letters.every(
      (c, i) => !CYRILLIC.test(c) || (latin(letters[i - 1]) && latin(letters[i + 1])),
    );
    return inside ? letters.map((c) => LATIN_LOOK[c] ?? c).join("") : word;
  });
}
