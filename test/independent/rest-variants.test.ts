/**
 * An allowed variation of the REST API never changes a must verdict: the REST checks against the
 * simulator behind the loopback proxy of oauth-proxy.ts, rewriting its /api/v4 answers into one
 * variant of rest-variants.ts at a time (the same judgement as oauth-variants.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../suites/report/model.js';
import { expectAllowed, labelled, type Variant } from './corpus.js';
import { proxyForTests } from './oauth-proxy.js';
import { REST_VARIANTS } from './rest-variants.js';

const proxy = proxyForTests();

/** A variant is judged, not stepped around: every check it concerns ran to a verdict, but those it leaves untested on purpose. */
function judged(report: Report, variant: Variant): void {
  const skipped = report.checks.filter((c) => c.status === 'skipped');
  expect(skipped.map((c) => c.id).sort()).toEqual(Object.keys(variant.skips ?? {}).sort());
  for (const c of skipped) expect(c.message, c.id).toMatch(variant.skips![c.id]);
}

describe('the REST API checks behind a proxy that rewrites answers into allowed variants', () => {
  it.each(labelled(REST_VARIANTS))(
    '%s: no must failure, exit 0',
    (_label, variant) =>
      expectAllowed(proxy(), {
        ...variant,
        after: (report) => {
          judged(report, variant);
          variant.after?.(report);
        },
      }),
    300_000,
  );
});

describe('a deployment under a relative URL root (https://host/gitlab), its own links written with it', () => {
  // Omnibus `external_url 'https://example.com/gitlab'`: every path, the API's and OAuth's, lives
  // under /gitlab, and what does not is another application's (404 here, so a dropped root fails).
  it('L15: the API is at {base_url}/api/v4 whatever base_url holds; no must failure, nothing sent outside the root', async () => {
    const origin = proxy().url.replace(/\/$/, '');
    const config = JSON.parse(readFileSync(proxy().configFile, 'utf8')) as Record<string, unknown>;
    const file = join(dirname(proxy().configFile), 'relative-root.json');
    writeFileSync(file, JSON.stringify({ ...config, baseUrl: `${origin}/gitlab` }));
    const outside: string[] = [];
    const rooted = (url: string) => url.split(`${origin}/`).join(`${origin}/gitlab/`);
    await expectAllowed(proxy(), {
      name: 'relative URL root',
      cite: 'L15',
      checks: [
        'versioning.api-prefix',
        'versioning.unknown-route-404',
        'pagination.offset-headers',
        'pagination.keyset-list-projects',
        'scopes.presentation-bearer',
        'encoding.namespaced-path-encoded',
        'encoding.moved-path-redirect',
        'grants.refresh-rotation',
      ],
      flags: { config: file },
      rewrite: {
        refuse(asked) {
          if (asked.url.pathname.startsWith('/gitlab/')) return undefined;
          outside.push(`${asked.method} ${asked.url.pathname}`);
          return { status: 404, head: new Map([['content-type', ['text/html']]]), body: Buffer.from('Not Found') };
        },
        request(asked) {
          asked.url = new URL(`${asked.url.pathname.slice('/gitlab'.length)}${asked.url.search}`, asked.url);
          return true;
        },
        answer(_asked, answer) {
          for (const name of ['link', 'location'])
            answer.head.set(
              name,
              (answer.head.get(name) ?? []).map((v) => rooted(v).replace(/^\/(?!gitlab\/)/, '/gitlab/')),
            );
          if (!answer.head.get('link')?.length) answer.head.delete('link');
          if (!answer.head.get('location')?.length) answer.head.delete('location');
          const type = answer.head.get('content-type')?.[0] ?? '';
          if (/json|html/.test(type))
            answer.body = Buffer.from(
              rooted(answer.body.toString('utf8')).replace(/(action|href)="\/(?!gitlab\/)/g, '$1="/gitlab/'),
            );
          return true;
        },
      },
      after: () => expect(outside).toEqual([]),
    });
  }, 300_000);
});
