/**
 * python-gitlab (Debian's python3-gitlab), a GitLab API client no one here wrote, against the
 * simulator over real HTTP: it signs in with the personal access token and iterates the users
 * through the simulator's Link headers in offset and keyset modes, as a client developer's code
 * does. .ci/run installs the package; without it the test says so and skips.
 */
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serve } from '../../../simulator/adapters/node.js';
import { createSimulator } from '../../../simulator/core.js';
import type { SimulatorOptions } from '../../../simulator/types.js';
import { seededPat } from './helpers.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../../fixtures/clients/python-gitlab.py', import.meta.url));
const hasPythonGitlab = spawnSync(PYTHON, ['-c', 'import gitlab']).status === 0;

interface Listed {
  me: string;
  offset: number[];
  keyset: number[];
  firstPage: number;
  warnings: string[];
}

/** What python-gitlab lists from a simulator started with `options`, and how many users it holds. */
async function listed(options: SimulatorOptions = {}): Promise<{ got: Listed; total: number }> {
  const sim = createSimulator(options);
  const served = await serve(sim);
  try {
    const head = await fetch(`${served.url}/api/v4/users?per_page=1`);
    const total = Number(head.headers.get('x-total'));
    const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, served.url, seededPat(sim)], { timeout: 60_000 });
    return { got: JSON.parse(stdout) as Listed, total };
  } finally {
    await served.close();
  }
}

const ascending = (ids: number[]) => ids.every((id, i) => i === 0 || ids[i - 1] < id);

describe.skipIf(!hasPythonGitlab)(
  hasPythonGitlab
    ? 'python-gitlab over real HTTP'
    : `python-gitlab: skipped, no python3-gitlab for ${PYTHON} (apt-get install python3-gitlab)`,
  () => {
    it('signs in and lists every user exactly once, in offset and in keyset mode, without a warning', async () => {
      const { got, total } = await listed();
      expect(total).toBeGreaterThan(1000);
      expect(got.me).toBe('root');
      expect(got.offset).toHaveLength(total);
      expect(new Set(got.offset).size).toBe(total);
      expect(got.keyset).toHaveLength(total);
      expect(ascending(got.keyset)).toBe(true);
      expect(got.firstPage).toBe(20);
      expect(got.warnings).toEqual([]);
    });

    it('the same client sees a provider whose pages carry no Link header stop after one page', async () => {
      const { got, total } = await listed({ faults: ['link-header-dropped'] });
      expect(got.offset.length).toBeLessThan(total);
      expect(got.keyset).toHaveLength(100);
    });
  },
);
