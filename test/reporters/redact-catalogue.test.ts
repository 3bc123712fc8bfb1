/**
 * redact() scans every string of a report, the catalogue's own words included: no rule or check
 * may lose a word of its id, title, source or origin to it.
 */
import { describe, expect, it } from 'vitest';
import { rules } from '../../spec/index.js';
import { allChecks } from '../../suites/index.js';
import { redactText } from '../../suites/report/redact.js';

describe('the catalogue reads the same after redaction', () => {
  it('every rule: id, title, source and origin', () => {
    const changed = rules()
      .flatMap((r) => [r.id, r.title, r.source, r.origin])
      .filter((text) => redactText(text) !== text);
    expect(changed).toEqual([]);
  });
  it('every check: id, suite, title and rules', () => {
    const changed = allChecks()
      .flatMap((c) => [c.id, c.suite, c.title, ...c.rules])
      .filter((text) => redactText(text) !== text);
    expect(changed).toEqual([]);
  });
});
