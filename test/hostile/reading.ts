/**
 * What a reader makes of a report (review 22): HTML's `&amp;` undone, every `\u` escape (however
 * many backslashes quote it) and numeric entity read as its character, JSON's `\n`, `\r`, `\t` and
 * all whitespace left out, case ignored. A test's own reading, not the secret index's.
 */
export const reading = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/(?<!\\)\\+u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#x([0-9a-f]{1,6});?/gi, (_, h: string) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)))
    .replace(/&#(\d{1,7});?/g, (_, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/(?<!\\)\\+[nrt]|\s|\u200b/g, '')
    .toLowerCase();
