/**
 * A name the target chose (a header, a member of its JSON, a Link relation, a content coding, an
 * entity of its page) looked up in a table of ours: only the table's own entries count. In a plain
 * object `constructor`, `__proto__` and `toString` are found on Object.prototype, which is no
 * entry: a Link of rel="constructor" made the Link reader push onto the Object function.
 */
export const own = <T>(table: Readonly<Record<string, T>>, name: string): T | undefined =>
  Object.hasOwn(table, name) ? table[name] : undefined;
