/**
 * driver "simulator" without its control API says what the control API answered: a 403 is the
 * simulator's own Host guard, not silence (issue 23: both read "does not answer").
 */
import { describe, expect, it } from 'vitest';
import { createDriver } from '../../suites/drivers/index.js';
import { TargetError } from '../../suites/errors.js';
import { createHttp, createRecorder } from '../../suites/runner/http.js';
import { createRedactor } from '../../suites/runner/redact.js';
import { TransportError } from '../../suites/target/types.js';
import { FAKE_BASE, fakeTarget } from './fakes.js';

async function refusal(answer: () => Response): Promise<string> {
  const http = createHttp(fakeTarget(answer), createRecorder(), createRedactor());
  const error = await createDriver(http, { baseUrl: FAKE_BASE, driver: { kind: 'simulator' } }, false).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetError);
  return (error as Error).message;
}

describe('driver "simulator" without the control API', () => {
  it('names a 403 as the Host guard', async () => {
    expect(await refusal(() => Response.json({ message: 'host not allowed' }, { status: 403 }))).toMatch(
      /config answered 403: the simulator refuses requests naming this host \(serve it with --allow-host/,
    );
  });
  it('names another status as not the config', async () => {
    expect(await refusal(() => new Response('nope', { status: 404 }))).toMatch(
      /config answered 404, not the simulator's config$/,
    );
  });
  it('says "does not answer" only when nothing answered', async () => {
    const message = await refusal(() => {
      throw new TransportError('connection refused', 'unreachable');
    });
    expect(message).toMatch(/config does not answer \(.*connection refused/);
  });
});
