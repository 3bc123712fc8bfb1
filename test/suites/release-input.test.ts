/** Only releases spec/profiles.yaml knows are accepted, with one wording in run, simulate and configs. */
import { describe, expect, it } from 'vitest';
import { parseRunFlags } from '../../cli/run.js';
import { simulatorOptions } from '../../cli/simulate.js';
import { createSimulator } from '../../simulator/core.js';
import { releaseProblem, releases } from '../../spec/index.js';
import { parseTargetConfig } from '../../suites/target/config.js';

describe('release validation', () => {
  it('accepts every listed release and those between, refuses the rest listing the known ones', () => {
    for (const r of [...releases(), '16.6', '17.3', '19.4']) expect(releaseProblem(r), r).toBeUndefined();
    for (const r of ['1.0', '14.9', '20.0', '99.0']) {
      expect(releaseProblem(r)).toBe(
        `unknown release "${r}" (known: 15.0 to 19.x, changing at ${releases().join(', ')})`,
      );
    }
    expect(releaseProblem('latest')).toMatch(/^release "latest" is not a release number like 17\.1 \(known: /);
  });

  it.each(['99.0', '1.0', 'x'])('refuses %s in run, simulate, a config and the simulator in the same words', (r) => {
    const words = releaseProblem(r)!;
    expect(() => parseRunFlags({ release: r }, {})).toThrow(`--release: ${words}`);
    expect(() => simulatorOptions({ release: r })).toThrow(`--release: ${words}`);
    expect(() => parseTargetConfig(`baseUrl: http://127.0.0.1:1\nrelease: "${r}"\n`, 't.yaml')).toThrow(
      /^t\.yaml: release/,
    );
    if (/^\d+\.\d+$/.test(r)) {
      expect(() => parseTargetConfig(`baseUrl: http://127.0.0.1:1\nrelease: "${r}"\n`, 't.yaml')).toThrow(
        `t.yaml: release: ${words}`,
      );
    }
    expect(() => createSimulator({ release: r })).toThrow(words);
  });

  it('says a wrong offering in the same words in run and simulate', () => {
    const words = '--offering must be self-managed or hosted, got "cloud"';
    expect(() => parseRunFlags({ offering: 'cloud' }, {})).toThrow(words);
    expect(() => simulatorOptions({ offering: 'cloud' })).toThrow(words);
  });
});
