/**
 * What the proxy's report quotes of a provider is cut and masked as a run's is (one function,
 * describeFailure): a provider answering 400 with a 900 KB `error` made each failure message
 * quote it whole (review 16: 6 POSTs, a 4.5 MB message, 9 MB of JUnit), and a token the provider
 * issued earlier, echoed in that `error`, was shown whole.
 */
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Loopback } from '../suites/loopback.js';
import { MAX_MESSAGE } from '../../suites/report/cut.js';
import { recordingProxy } from './behind.js';

/** A token the provider issues first, then quotes in every refusal. */
const TOKEN = 'Qx7vT2mK9pLw4Rz8Hn3Jc6Bd';
const HUGE = 900_000;
const POSTS = 6;

let origin: Loopback;
beforeAll(async () => {
  let answered = 0;
  origin = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = answered++
        ? { error: `${TOKEN}_${answered}_${'Z'.repeat(HUGE)}`, error_description: 'x' }
        : { access_token: TOKEN, token_type: 'Bearer', expires_in: 7200, scope: 'api', created_at: 1 };
      res.writeHead(answered === 1 ? 200 : 400, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    });
  });
});
afterAll(() => origin.close());

describe('proxy: the provider’s text in failure messages', () => {
  it('is cut to what a run keeps and masked with the secrets the traffic taught', async () => {
    const proxy = await recordingProxy('quoted', origin.url);
    try {
      for (let n = 0; n <= POSTS; n++)
        await fetch(`${proxy.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=c&client_secret=s&n=${n}`,
        }).then((r) => r.arrayBuffer());
      const { proxy: report, file } = await proxy.finish();
      const failed = report.checks.filter((c) => c.status === 'failed');
      expect(failed.map((c) => c.id)).toContain('proxy.ERR-TOKEN-STANDARD-CODES');
      for (const check of report.checks) {
        // At most five kept sentences per rule, each cut as a run cuts one.
        expect(check.message!.length, check.id).toBeLessThan(5 * (MAX_MESSAGE + 2) + 100);
        expect(check.message, check.id).not.toContain(TOKEN);
      }
      expect(failed.find((c) => c.id === 'proxy.ERR-TOKEN-STANDARD-CODES')?.message).toMatch(/more characters\)/);
      expect(statSync(file).size).toBeLessThan(200_000);
    } finally {
      proxy.stop();
    }
  });
});
