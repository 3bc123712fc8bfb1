/**
 * A 101 nobody asked for, without an Upgrade header, its "body" cut off by the target closing the
 * connection (found by random-target.test.ts, HOSTILE_SEED=11). Node hands such an answer to the
 * response callback, whose body then never ends and never fails, and the connection's close took
 * the request's timer with it: the request, and the run, waited for ever. Now a 101 is refused as
 * it comes, and an answer begun and never ended is said once its connection is gone.
 */
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpTarget } from '../../suites/target/http.js';

async function answerOnce(bytes: Buffer) {
  const server = createServer((socket) =>
    socket.once('data', () => {
      socket.write(bytes.subarray(0, bytes.length >> 1));
      socket.destroy();
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const target = createHttpTarget({ baseUrl: url }, { timeoutMs: 400 });
  try {
    return await Promise.race([
      target.send({ method: 'GET', url: `${url}/x`, headers: new Headers() }).then(
        (r) => `answered ${r.status}`,
        (e: Error) => e.message,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
    ]);
  } finally {
    await target.close();
    server.close();
  }
}

describe('an unasked 101 without Upgrade, cut off', () => {
  it('is said in one line, at once (it was waited on for ever)', async () => {
    const head = 'HTTP/1.1 101 Hostile\r\ncontent-type: application/json\r\ncontent-length: 2000\r\n\r\n';
    const said = await answerOnce(Buffer.concat([Buffer.from(head), Buffer.from('['.repeat(1000) + ']'.repeat(1000))]));
    expect(said).toMatch(
      /^GET \/x: 127\.0\.0\.1:\d+ answered 101 Switching Protocols, an upgrade the request did not ask for$/,
    );
  }, 10_000);
});
