/**
 * The marker that starts every name the harness makes up for the target (an unknown route, a
 * project path it creates, a scratch project): no service's own name, and so `diff` can tell the
 * harness's random names from the target's (suites/diff/operation.ts folds them into one).
 */
export const GENERATED = 'conformance-';

/** Does a path segment start a name the harness made up? */
export const isGenerated = (segment: string) => segment.startsWith(GENERATED);
