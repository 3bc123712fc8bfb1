/**
 * The client's side of a proxy report, in every format: one line per habit seen, apart from the
 * rules (they judge the provider). `where` comes from the traffic: each format passes every piece
 * through its own escaper.
 */
import type { ClientHabitSeen, ClientSection } from '../suites/report/model.js';

/**
 * Where a user finds the first exchange that showed a habit: its number, and its method and path.
 * The number is escaped too: Markdown's `#4` would be a live reference to issue 4 in a PR comment.
 */
const firstText = (seen: ClientHabitSeen, esc: (text: string) => string): string =>
  seen.first ? `first at exchange ${esc(`#${seen.first.exchange}`)} (${esc(seen.first.where)}); ` : '';

/** The section as plain sentences, each piece escaped by `esc` (terminalSafe, md, h). */
export function clientLines(section: ClientSection, esc: (text: string) => string): string[] {
  if (!section.habits.length) return [`None of the habits the proxy looks for, in ${section.exchanges} exchanges.`];
  return section.habits.map(
    (seen) =>
      `${esc(seen.habit)} (${seen.count}×): the client ${esc(seen.title)}; ${firstText(seen, esc)}seen at ${seen.where.map(esc).join(', ')}`,
  );
}

/** The proxy's last line, kept in the files (the console prints it last, on its own): none, or one line. */
export const trafficLines = (section: ClientSection, esc: (text: string) => string): string[] =>
  section.traffic === undefined ? [] : [esc(section.traffic)];

export const CLIENT_HEADING =
  "The client's side (habits of the application behind the proxy; not the provider's failures)";
