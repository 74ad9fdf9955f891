/**
 * Edits of pdf.js's font loading that compute the same thing for less CPU, applied with worker-patch.ts's other
 * edits. Profiles of born-digital parses found TrueType fonts costing most where their glyph count is large and
 * most glyphs are empty (subsets that keep the original glyph ids, as office suites embed them: tens of thousands
 * of glyph slots, a few hundred drawn):
 *
 * - a TrueType font's glyph locations were sorted as objects, twice, to find where each glyph ends, and its empty
 *   glyphs were recorded as keys of a dictionary object. Locations in order (as fonts write them) are now not
 *   sorted at all; others are sorted as one number per glyph (its offset, then its index, so that glyphs at the
 *   same offset keep the order the stable sort kept). Ends are kept in typed arrays, empty glyphs in a byte array,
 *   and a glyph whose range is too short to hold one is marked empty without the call that returns that for it.
 *   Every other glyph is checked and copied as before, in the same order: the rebuilt file is the same bytes;
 * - a CID font drawn through the Identity CMap walked all 65,536 CIDs to map each to a glyph, though only CIDs
 *   below the glyph count (or below the CIDToGIDMap's length, where the font has one) can map to any: the walk
 *   stops there, with the same map;
 * - a long CMap (a ToUnicode or CID map with codes up to 0xFFFF) is walked over the codes it maps rather than
 *   every code below its length, in the same ascending order;
 * - a saved text state (q in the text pass) is a flat copy rather than an object whose prototype is the state
 *   saved (every field is copied either way, and no field is added later).
 *
 * None of them changes which fonts load, what they map or how they draw: a font that failed to load before (and
 * fell back to a system font) still fails at the same step. font-edits.test.ts compares text and renders with
 * pdf.js as published.
 */

import type { WorkerEdit } from "./worker-edit.ts";

export const FONT_EDITS: readonly WorkerEdit[] = [
  {
    why: "a TrueType font's glyph ranges found by sorting numbers in typed arrays instead of objects, its empty glyphs kept in a byte array (same ranges, same order of checks, same file)",
    find: `      let i, j;
      const locaEntries = [];
      for (i = 0, j = 0; i < numGlyphs + 1; i++, j += itemSize) {
        let offset = itemDecode(locaData, j);
        if (offset > oldGlyfDataLength) {
          offset = oldGlyfDataLength;
        }
        locaEntries.push({
          index: i,
          offset,
          endOffset: 0
        });
      }
      locaEntries.sort((a, b) => a.offset - b.offset);
      for (i = 0; i < numGlyphs; i++) {
        locaEntries[i].endOffset = locaEntries[i + 1].offset;
      }
      locaEntries.sort((a, b) => a.index - b.index);
      for (i = 0; i < numGlyphs; i++) {
        const {
          offset,
          endOffset
        } = locaEntries[i];
        if (offset !== 0 || endOffset !== 0) {
          break;
        }
        const nextOffset = locaEntries[i + 1].offset;
        if (nextOffset === 0) {
          continue;
        }
        locaEntries[i].endOffset = nextOffset;
        break;
      }
      const last = locaEntries.at(-2);
      if (last.offset !== 0 && last.endOffset === 0) {
        last.endOffset = oldGlyfDataLength;
      }
      const missingGlyphs = Object.create(null);
      let writeOffset = 0;
      itemEncode(locaData, 0, writeOffset);
      for (i = 0, j = itemSize; i < numGlyphs; i++, j += itemSize) {
        const glyphProfile = sanitizeGlyph(oldGlyfData, locaEntries[i].offset, locaEntries[i].endOffset, newGlyfData, writeOffset, hintsValid);
        const newLength = glyphProfile.length;
        if (newLength === 0) {
          missingGlyphs[i] = true;
        }
        if (glyphProfile.sizeOfInstructions > maxSizeOfInstructions) {
          maxSizeOfInstructions = glyphProfile.sizeOfInstructions;
        }
        writeOffset += newLength;
        itemEncode(locaData, j, writeOffset);
      }`,
    replace: `      let i, j;
      if (numGlyphs < 1) {
        throw new TypeError("Cannot read properties of undefined (reading 'offset')");
      }
      const svcCount = numGlyphs + 1;
      const svcOffsets = new Int32Array(svcCount);
      const svcEnds = new Int32Array(svcCount);
      let svcInOrder = true;
      for (i = 0, j = 0; i < svcCount; i++, j += itemSize) {
        let offset = itemDecode(locaData, j);
        if (offset > oldGlyfDataLength) {
          offset = oldGlyfDataLength;
        }
        svcOffsets[i] = offset;
        if (i > 0 && offset < svcOffsets[i - 1]) {
          svcInOrder = false;
        }
      }
      if (svcInOrder) {
        for (i = 0; i < numGlyphs; i++) {
          svcEnds[i] = svcOffsets[i + 1];
        }
      } else {
        const svcKeys = new Float64Array(svcCount);
        for (i = 0; i < svcCount; i++) {
          svcKeys[i] = svcOffsets[i] * 65536 + i;
        }
        svcKeys.sort();
        for (i = 0; i < numGlyphs; i++) {
          const key = svcKeys[i];
          const nextKey = svcKeys[i + 1];
          svcEnds[key - Math.floor(key / 65536) * 65536] = svcOffsets[nextKey - Math.floor(nextKey / 65536) * 65536];
        }
      }
      for (i = 0; i < numGlyphs; i++) {
        if (svcOffsets[i] !== 0 || svcEnds[i] !== 0) {
          break;
        }
        const nextOffset = svcOffsets[i + 1];
        if (nextOffset === 0) {
          continue;
        }
        svcEnds[i] = nextOffset;
        break;
      }
      const last = numGlyphs - 1;
      if (svcOffsets[last] !== 0 && svcEnds[last] === 0) {
        svcEnds[last] = oldGlyfDataLength;
      }
      const missingGlyphs = new Uint8Array(numGlyphs);
      let writeOffset = 0;
      itemEncode(locaData, 0, writeOffset);
      for (i = 0, j = itemSize; i < numGlyphs; i++, j += itemSize) {
        const start = svcOffsets[i];
        const end = svcEnds[i];
        let newLength = 0;
        if (start < 0 || start >= oldGlyfDataLength || end > oldGlyfDataLength || end - start <= 12) {
          missingGlyphs[i] = 1;
        } else {
          const glyphProfile = sanitizeGlyph(oldGlyfData, start, end, newGlyfData, writeOffset, hintsValid);
          newLength = glyphProfile.length;
          if (newLength === 0) {
            missingGlyphs[i] = 1;
          }
          if (glyphProfile.sizeOfInstructions > maxSizeOfInstructions) {
            maxSizeOfInstructions = glyphProfile.sizeOfInstructions;
          }
        }
        writeOffset += newLength;
        itemEncode(locaData, j, writeOffset);
      }`,
  },
  {
    why: "a CID font through the Identity CMap maps only the CIDs that can reach a glyph (below the glyph count, or the CIDToGIDMap's length) instead of all 65,536",
    find: `      const isCidToGidMapEmpty = cidToGidMap.length === 0;
      properties.cMap.forEach(function (charCode, cid) {`,
    replace: `      const isCidToGidMapEmpty = cidToGidMap.length === 0;
      const svcIdentityEnd = Math.min(0x10000, isCidToGidMapEmpty ? numGlyphs : cidToGidMap.length);
      const svcCMap = properties.cMap instanceof IdentityCMap ? {
        forEach(callback) {
          for (let cid = 0; cid < svcIdentityEnd; cid++) {
            callback(cid, cid);
          }
        }
      } : properties.cMap;
      svcCMap.forEach(function (charCode, cid) {`,
  },
  {
    why: "a text state saved (q) is copied onto the class's prototype, not onto the saved state itself: every field is copied either way, so the same values are read, without a prototype chain as deep as the nesting of saves",
    find: `  clone() {
    const clone = Object.assign(Object.create(this), this);
    clone.textMatrix = this.textMatrix.slice();`,
    replace: `  clone() {
    const clone = Object.assign(Object.create(TextState.prototype), this);
    clone.textMatrix = this.textMatrix.slice();`,
  },
  {
    why: "a long CMap (a ToUnicode or CID map with codes up to 0xFFFF) walks the codes it maps, in the same ascending order, instead of testing every code below its length: such a map with a few hundred codes spread over 65,536 is held as a dictionary, where each test was a lookup",
    find: `  forEach(callback) {
    const map = this._map;
    const length = map.length;
    if (length <= 0x10000) {
      for (let i = 0; i < length; i++) {
        if (map[i] !== undefined) {
          callback(i, map[i]);
        }
      }
    } else {`,
    replace: `  forEach(callback) {
    const map = this._map;
    const length = map.length;
    if (length <= 0x10000 && length > 0x1000) {
      for (const key in map) {
        const i = +key;
        if (!(i < length) || map[i] === undefined) {
          continue;
        }
        callback(i, map[i]);
      }
    } else if (length <= 0x10000) {
      for (let i = 0; i < length; i++) {
        if (map[i] !== undefined) {
          callback(i, map[i]);
        }
      }
    } else {`,
  },
];
