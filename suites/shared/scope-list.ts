/**
 * A `scope` value read as a list. RFC 6749 §3.3 delimits scopes with spaces; a comma is read as a
 * delimiter too (GitHub answers "repo,gist"; no scope name the source shows holds one), so that
 * the format is blamed once, on TOK-SCOPE-SPACE-DELIMITED, and no other check reads such a list as
 * one unknown scope.
 */
export const scopesOf = (scope: string): string[] => scope.split(/[ ,]+/).filter(Boolean);

/** Whether a `scope` value delimits its scopes with commas rather than spaces. */
export const commaDelimited = (scope: string): boolean => scope.split(' ').some((s) => scopesOf(s).length > 1);
