/** One argument as a POSIX shell reads it back: as is when plain, else in single quotes. */
const quote = (arg: string) => (/^[\w./:=,@-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** `npx idp-conformance ARGS…`, to paste into a shell: a failure's reproduce line, a run's rerun. */
export function commandLine(args: readonly string[]): string {
  return ['npx', 'idp-conformance', ...args].map(quote).join(' ');
}
