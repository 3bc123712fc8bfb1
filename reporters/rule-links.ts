/** Where the reports' rule ids point: each rule's entry in the catalogue written beside the report. */

/** The file names `spec catalogue` writes, and that `run --report` writes beside HTML and Markdown reports. */
export const CATALOGUE_FILES = { html: 'rules.html', md: 'rules.md' } as const;

/** The anchor of a rule's entry in the catalogue pages: the id itself (ids are [A-Z0-9-]). */
export const catalogueAnchor = (ruleId: string): string => ruleId;

/**
 * Encoded whole (RFC 3986: also `!'()*`, which encodeURIComponent leaves): a saved report is data, and
 * a `)` in an id it names would end a Markdown link early and leave the rest live text.
 */
export const ruleHref = (id: string, file: string): string =>
  `${file}#${encodeURIComponent(catalogueAnchor(id)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
