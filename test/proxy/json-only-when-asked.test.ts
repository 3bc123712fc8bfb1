/**
 * `proxy` in front of a provider that answers JSON only when asked (GitHub's token and device
 * endpoints, test/independent/json-only-when-asked.ts), the project's own checks as its client:
 * the proxy sees the harness ask for JSON as clients do, and blames the answers to the two
 * requests sent without Accept on the rules the run blames, one exchange each, nothing else.
 */
import { expect, it } from 'vitest';
import { targetConfig } from '../../simulator/control/config.js';
import type { Report } from '../../suites/report/model.js';
import { proxyForTests } from '../independent/oauth-proxy.js';
import { JSON_READERS, jsonOnlyWhenAsked } from '../independent/json-only-when-asked.js';
import { recordingProxy, runAll } from './behind.js';

const provider = proxyForTests();
const JSON_RULES = ['DEV-AUTHORIZE-RESPONSE', 'ENC-RESPONSE-JSON', 'TOK-RESPONSE-JSON'];
const failed = (report: Report) =>
  report.rules
    .filter((r) => r.status === 'failed')
    .map((r) => r.id)
    .sort();

it('the proxy and the run fail the same JSON rules, each on the one answer to a request without Accept', async () => {
  const upstream = provider();
  upstream.use(jsonOnlyWhenAsked);
  const proxy = await recordingProxy('json-only-when-asked', upstream.url);
  try {
    // The proxy forwards the client's Host: the simulator's control API must answer it too.
    upstream.sim.options.controlHosts?.push(new URL(proxy.url).host);
    const config = targetConfig(upstream.sim, proxy.url);
    const run = await runAll('json-only-when-asked', proxy.url, config, { checks: JSON_READERS }, {});
    const { proxy: judged } = await proxy.finish();
    expect(failed(run)).toEqual(JSON_RULES);
    expect(failed(judged)).toEqual(JSON_RULES);
    const messages = judged.checks.filter((c) => c.status === 'failed').map((c) => c.message ?? '');
    for (const message of messages)
      expect(message).toMatch(/^(1|2) of \d+ exchanges broke it: POST \/oauth\/(token|authorize_device)\b/);
    expect(messages.join('\n')).toMatch(
      /POST \/oauth\/token \(authorization_code grant\) must answer 200 with a JSON object/,
    );
    expect(messages.join('\n')).toMatch(/POST \/oauth\/authorize_device must answer 200 with a JSON object/);
  } finally {
    proxy.stop();
    upstream.use(undefined);
  }
}, 300_000);
