/** Typed outcomes a check throws: a failure with a human sentence, or a skip with its reason. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
    /** fast-check counterexample after shrinking, when a property failed. */
    readonly counterexample?: string,
  ) {
    super(message);
  }
}

export class CheckSkipped extends Error {
  override name = 'CheckSkipped';
}
