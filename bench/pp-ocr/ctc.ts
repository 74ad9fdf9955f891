/*
 * Greedy CTC decoding of a text line recogniser's output: at each time step the likeliest class; a run of the same
 * class is one character, class 0 (blank) separates characters. Each character keeps the time steps it spans and
 * its probability, from which words get their boxes and confidences.
 */

/** A character decoded from time steps `first`..`last` (inclusive), with its mean probability (0..1). */
export interface CtcChar {
  char: string;
  first: number;
  last: number;
  prob: number;
}

/**
 * Decodes one line's probabilities (`steps` × `classes`, row-major); `alphabet[i]` is the character of class
 * `i + 1` (class 0 is the blank).
 */
export function decodeCtc(
  probs: Float32Array,
  steps: number,
  classes: number,
  alphabet: readonly string[],
): CtcChar[] {
  const chars: CtcChar[] = [];
  let previous = 0;
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    let best = 0;
    let bestProb = probs[row];
    for (let c = 1; c < classes; c++) {
      if (probs[row + c] > bestProb) {
        bestProb = probs[row + c];
        best = c;
      }
    }
    if (best !== 0 && best === previous) {
      const char = chars[chars.length - 1];
      char.prob = (char.prob * (t - char.first) + bestProb) / (t - char.first + 1);
      char.last = t;
    } else if (best !== 0) {
      chars.push({ char: alphabet[best - 1] ?? "", first: t, last: t, prob: bestProb });
    }
    previous = best;
  }
  return chars.filter((c) => c.char !== "");
}

/** A word of a decoded line: its characters' text, time span and mean probability. */
export interface CtcWord {
  text: string;
  first: number;
  last: number;
  prob: number;
}

/**
 * The line's words: characters between spaces. Characters of a script written without spaces stay one word per
 * run, as Tesseract's plain text gives them.
 */
export function ctcWords(chars: readonly CtcChar[]): CtcWord[] {
  const words: CtcWord[] = [];
  let current: CtcChar[] = [];
  const flush = () => {
    if (current.length === 0) return;
    words.push({
      text: current.map((c) => c.char).join(""),
      first: current[0].first,
      last: current[current.length - 1].last,
      prob: current.reduce((sum, c) => sum + c.prob, 0) / current.length,
    });
    current = [];
  };
  for (const char of chars) {
    if (/^\s+$/.test(char.char)) flush();
    else current.push(char);
  }
  flush();
  return words;
}
