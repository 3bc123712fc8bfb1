/**
 * The HTML report in real headless Chromium (Debian's, through playwright-core, launched as the
 * browser driver launches it): the counts on the page equal the JSON's, the filters and the column
 * sort work from the file alone, nothing is fetched, and a screenshot is left at
 * reports/html-report.png for a human to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { executeRun } from '../../cli/run.js';
import { borrowBrowser, DEFAULT_CHROMIUM } from '../../suites/drivers/browser.js';
import type { Report } from '../../suites/report/model.js';

const CHROMIUM = process.env.IDP_CHROMIUM ?? DEFAULT_CHROMIUM;
const hasChromium = existsSync(CHROMIUM);
const OUT = fileURLToPath(new URL('../../reports/', import.meta.url));
export const SCREENSHOT = join(OUT, 'html-report.png');

describe.skipIf(!hasChromium)(
  hasChromium ? 'HTML report in Chromium' : `HTML report in Chromium (skipped: no Chromium at ${CHROMIUM})`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-html-'));
    let release: (() => Promise<void>) | undefined;
    let page: Page;
    let report: Report;
    const requests: string[] = [];

    beforeAll(async () => {
      // Faults give the page failures and warnings; the embedded simulator skips what needs a live clock.
      // One property run: the page is judged against this report, whatever its draws.
      const code = await executeRun(
        {
          seed: '5',
          runs: '1',
          fault: ['refresh-token-reusable', 'token-error-cacheable', 'cors-no-preflight'],
          report: `json=${dir}/r.json,html=${dir}/r.html`,
        },
        { out: () => undefined, err: () => undefined },
        {},
      );
      expect(code).toBe(1);
      report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8')) as Report;
      // The worker's Chromium (test/setup/one-chromium.ts); the page is a context of its own.
      const borrowed = await borrowBrowser({ executablePath: CHROMIUM });
      release = borrowed.release;
      page = await borrowed.browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('request', (r) => void (r.url().startsWith('file:') || requests.push(r.url())));
      const errors: string[] = [];
      page.on('pageerror', (e) => void errors.push(e.message));
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      await page.goto(pathToFileURL(`${dir}/r.html`).href);
      // The script ran (it shows the filters) and the CSP let it: no error on the console.
      await page.locator('form#filters').waitFor({ state: 'visible' });
      expect(errors).toEqual([]);
    }, 120_000);

    afterAll(async () => {
      await page?.close();
      await release?.();
      rmSync(dir, { recursive: true, force: true });
    });

    const visible = (selector: string) => page.locator(`${selector}:visible`).count();
    const notInfo = () => report.rules.filter((r) => r.level !== 'info').length;
    const defaultChecks = () => {
      const level = new Map(report.rules.map((r) => [r.id, r.level]));
      return report.checks.filter((c) => {
        const levels = c.rules.map((id) => level.get(id)).filter(Boolean);
        return !levels.length || levels.some((l) => l !== 'info');
      }).length;
    };
    const showAll = async () => {
      await page.locator('#show-all').click();
      await expect.poll(() => visible('tr[data-f="rule"]')).toBe(report.rules.length);
    };
    const count = async (key: string) => Number(await page.locator(`[data-count="${key}"]`).textContent());

    it('shows the JSON report counts: cards, rows and failures', async () => {
      expect(report.summary.failed).toBeGreaterThan(0);
      expect(report.summary.warned).toBeGreaterThan(0);
      for (const status of ['passed', 'failed', 'warned', 'skipped', 'errored'] as const)
        expect(await count(`checks-${status}`), status).toBe(report.summary[status]);
      expect(await count('checks')).toBe(report.checks.length);
      expect(await count('rules')).toBe(report.rules.length);
      // The default view leaves out info rules (and checks that prove nothing else).
      expect(await visible('tr[data-f="check"]')).toBe(defaultChecks());
      expect(await visible('tr[data-f="rule"]')).toBe(notInfo());
      const failedRules = report.rules.filter((r) => r.status === 'failed').length;
      expect(await count('rules-failed')).toBe(failedRules);
      expect(await visible('details.check.failed')).toBe(report.summary.failed);
    });

    it('shows each failure message once, with its exchanges folded', async () => {
      const failed = report.checks.find((c) => c.status === 'failed')!;
      const first = failed.message!.split('\n')[0].trim();
      const text = await page.locator('body').innerText();
      expect(text.split(first).length - 1).toBe(1);
      const exchanges = page.locator('details.check.failed details.exchanges').first();
      expect(await exchanges.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    });

    it('draws a bar per area whose segments add up to its checks', async () => {
      const areas = [...new Set(report.checks.map((c) => c.suite))];
      expect(await page.locator('.bar').count()).toBe(areas.length);
      for (const area of areas) {
        const label = await page.locator(`.bar[data-area-bar="${area}"]`).getAttribute('aria-label');
        const total = [...(label ?? '').matchAll(/(?<!\d)(\d+) \w+/g)].reduce((n, m) => n + Number(m[1]), 0);
        expect(total, area).toBe(report.checks.filter((c) => c.suite === area).length);
      }
    });

    it('filters by status and level without a server, and shows all again', async () => {
      await page.locator('input[name="status"]').evaluateAll((boxes) =>
        boxes.forEach((b) => {
          const box = b as HTMLInputElement;
          if (box.value !== 'failed' && box.checked) box.click();
        }),
      );
      expect(await visible('tr[data-f="check"]')).toBe(report.summary.failed);
      expect(await visible('tr[data-f="rule"]')).toBe(report.rules.filter((r) => r.status === 'failed').length);
      expect(Number(await page.locator('b[data-shown="check"]').textContent())).toBe(report.summary.failed);
      await page.screenshot({ path: join(OUT, 'html-report-filtered.png'), fullPage: false });

      await page.locator('button[type="reset"]').click();
      await expect.poll(() => visible('tr[data-f="check"]')).toBe(defaultChecks());
      await showAll();
      expect(await visible('tr[data-f="check"]')).toBe(report.checks.length);
      await page.locator('input[name="level"][value="must"]').uncheck();
      const notMust = report.rules.filter((r) => r.level !== 'must').length;
      expect(await visible('tr[data-f="rule"]')).toBe(notMust);
      await page.locator('button[type="reset"]').click();
      await expect.poll(() => visible('tr[data-f="rule"]')).toBe(notInfo());
    });

    it('opens on what needs attention, fits 1280 px, and offers origin families (issue 23)', async () => {
      await page.locator('button[type="reset"]').click();
      await page.setViewportSize({ width: 1280, height: 900 });
      // Worst first: the first rows are the failed rules; no info rule in the default view.
      const statuses = await page.locator('#rule-matrix tbody tr:visible').evaluateAll((rows) =>
        rows.map((r) => r.getAttribute('data-status')),
      );
      const failed = report.rules.filter((r) => r.status === 'failed').length;
      expect(statuses.slice(0, failed)).toEqual(Array(failed).fill('failed'));
      expect(await visible('tr[data-f="rule"][data-level="info"]')).toBe(0);
      // Nothing runs off the right edge; rule ids are one line each.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      const heights = await page
        .locator('#rule-matrix tbody tr:visible td:first-child code')
        .evaluateAll((cells) => cells.map((c) => c.getBoundingClientRect().height));
      const line = Math.min(...heights);
      expect(heights.filter((h) => h > line * 1.6)).toEqual([]);
      // Origins grouped by family: source, documented, then each standard once.
      const origins = await page.locator('input[name="origin"]').evaluateAll((b) => b.map((x) => (x as HTMLInputElement).value));
      expect(origins.slice(0, 2)).toEqual(['source', 'documented']);
      expect(origins.every((o) => !o.includes('§'))).toBe(true);
      // One box per standard (13 today), not one per section (about 40 before).
      const sections = new Set(report.rules.map((r) => r.origin).filter(Boolean));
      expect(origins.length).toBeLessThan(sections.size);
      expect(origins.length).toBeLessThanOrEqual(16);
      mkdirSync(OUT, { recursive: true });
      await page.screenshot({ path: join(OUT, 'html-report-first-screen.png'), fullPage: false });
    });

    it('sorts the rule matrix by a column, both ways', async () => {
      await showAll();
      const ids = () => page.locator('#rule-matrix tbody tr td:first-child').allInnerTexts();
      await page.locator('#rule-matrix th button', { hasText: 'Rule' }).click();
      const sorted = [...report.rules.map((r) => r.id)].sort((a, b) => a.localeCompare(b));
      expect(await ids()).toEqual(sorted);
      await page.locator('#rule-matrix th button', { hasText: 'Rule' }).click();
      expect(await ids()).toEqual([...sorted].reverse());
      await page.locator('#rule-matrix th button', { hasText: 'Status' }).click();
      expect((await ids()).slice(0, 1)).toEqual([report.rules.find((r) => r.status === 'failed')!.id].slice(0, 1));
    });

    it('fetched nothing, prints, and leaves a screenshot', async () => {
      expect(requests).toEqual([]);
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 4).toString()).toBe('%PDF');
      mkdirSync(OUT, { recursive: true });
      // The top of the page and the first failure: what a reader sees first.
      await page.setViewportSize({ width: 1280, height: 2000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: SCREENSHOT, fullPage: false });
      expect(existsSync(SCREENSHOT)).toBe(true);
    });
  },
);
