/**
 * Reads the source document (markdown) as data: its headings, the rows of its tables and the
 * items of its lists, each under the heading path it appears in, and its prose paragraphs. The
 * source map (spec/source-map.yaml) is checked against this, so a row added to the source without
 * a map entry is caught; a prose paragraph is mapped where it states something (many are context).
 */

export interface SourceHeading {
  /** Titles from level 2 down, joined by " > " (the document title is left out). */
  path: string;
  level: number;
  line: number;
}

export interface SourceItem {
  kind: 'row' | 'bullet' | 'sentence';
  /** Heading path the item sits under. */
  section: string;
  /** Row: cells joined by " | "; bullet: the item text; sentence: the paragraph. Backticks removed, spaces collapsed. */
  text: string;
  /** 1-based line in the markdown. */
  line: number;
}

export interface SourceText {
  headings: SourceHeading[];
  /** Table rows and list items: each must have a map entry. */
  items: SourceItem[];
  /** Prose paragraphs (kind `sentence`): mapped where normative, the rest is context. */
  prose: SourceItem[];
}

const clean = (text: string): string => text.replace(/`/g, '').replace(/\s+/g, ' ').trim();

function tableCells(line: string): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map(clean);
}

const isSeparatorRow = (cells: string[]): boolean => cells.every((c) => /^:?-{3,}:?$/.test(c));

export function parseSourceText(markdown: string): SourceText {
  const lines = markdown.split(/\r?\n/);
  const headings: SourceHeading[] = [];
  const items: SourceItem[] = [];
  const prose: SourceItem[] = [];
  let paragraph: SourceItem | undefined;
  const stack: string[] = [];
  let section = '';
  let inFence = false;
  let tableRow = -1; // index within the current table, -1 outside a table
  let openBullet: { item: SourceItem; indent: number } | undefined;

  lines.forEach((raw, index) => {
    const line = index + 1;
    if (/^\s*```/.test(raw)) {
      inFence = !inFence;
      return;
    }
    if (inFence) return;
    const open = paragraph;
    paragraph = undefined;

    const heading = /^(#{1,6})\s+(\S.*)?$/.exec(raw);
    if (heading) {
      const level = heading[1].length;
      tableRow = -1;
      openBullet = undefined;
      if (level === 1) return;
      stack.length = level - 2;
      stack[level - 2] = clean(heading[2] ?? '');
      section = stack.filter(Boolean).join(' > ');
      headings.push({ path: section, level, line });
      return;
    }

    if (/^\s*\|/.test(raw)) {
      openBullet = undefined;
      tableRow += 1;
      const cells = tableCells(raw);
      // Row 0 is the header, row 1 the separator.
      if (tableRow >= 1 && !isSeparatorRow(cells))
        items.push({ kind: 'row', section, text: cells.join(' | ').trim(), line });
      return;
    }
    tableRow = -1;

    const bullet = /^(\s*)(?:[-*+]|\d+\.)\s+(\S.*)?$/.exec(raw);
    if (bullet) {
      const item: SourceItem = { kind: 'bullet', section, text: clean(bullet[2] ?? ''), line };
      items.push(item);
      openBullet = { item, indent: bullet[1].length };
      return;
    }
    if (raw.trim() === '') {
      openBullet = undefined;
      return;
    }
    // A wrapped list item continues on an indented line.
    const indent = /^\s*/.exec(raw)![0].length;
    if (openBullet && indent > openBullet.indent) {
      openBullet.item.text = clean(`${openBullet.item.text} ${raw}`);
      return;
    }
    openBullet = undefined;
    // Prose: consecutive lines make one paragraph.
    if (open) {
      open.text = clean(`${open.text} ${raw}`);
      paragraph = open;
    } else {
      paragraph = { kind: 'sentence', section, text: clean(raw), line };
      prose.push(paragraph);
    }
  });
  return { headings, items, prose };
}

/**
 * Does a section reference ("Endpoints > POST /oauth/token") name this heading path? Each segment
 * equals the heading title, or is the title without its parenthesised tail
 * ("Token response" for "Token response (returned by POST /oauth/token)").
 */
const matchCache = new Map<string, boolean>();

export function sectionMatches(reference: string, path: string): boolean {
  const key = `${reference}\u0000${path}`;
  let hit = matchCache.get(key);
  if (hit === undefined) matchCache.set(key, (hit = segmentsMatch(reference, path)));
  return hit;
}

function segmentsMatch(reference: string, path: string): boolean {
  const ref = reference.split(' > ').map(clean);
  const have = path.split(' > ');
  if (ref.length !== have.length) return false;
  return ref.every((segment, i) => segment === have[i] || have[i].startsWith(`${segment} (`));
}

/**
 * Is `source` (a rule's or a row's source field) a plausible reference? Either it names a source
 * that is not this document (an RFC, a standard, "(not shown)", documented behaviour, DESIGN), or
 * it is a heading path of the source, optionally followed by one label inside that section
 * ("Endpoints > POST /oauth/token > Rules") and a row note ("(row 3)").
 */
/** A source outside this document: an RFC or other standard, documented behaviour, DESIGN. */
export function isExternalSource(source: string): boolean {
  return /not shown|^RFC |^OpenID |^Fetch |^DESIGN|^Documented/.test(source);
}

export function sourceReferenceOk(source: string, headings: SourceHeading[]): boolean {
  if (isExternalSource(source)) return true;
  const bare = source.replace(/(?<!\s)\s*\(row \d+\)\s*$/, '').trim();
  if (headings.some((h) => sectionMatches(bare, h.path))) return true;
  // A label inside a level-3 section ("Endpoints > POST /oauth/token > Rules"), never a
  // misspelt heading directly under a top-level one.
  const segments = bare.split(' > ');
  const parent = segments.slice(0, -1).join(' > ');
  return segments.length >= 3 && headings.some((h) => sectionMatches(parent, h.path));
}
