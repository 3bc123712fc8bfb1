/**
 * The runtime's limit: a bare `node:http` server that answers each request of the bench with a
 * fixed body of the size the simulator answers it with (argv[2]: JSON { "METHOD path": bytes }).
 * A POST's body is read to its end first, as any server must.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveServerAsks } from './ipc.js';

const sizes = JSON.parse(process.argv[2] ?? '{}') as Record<string, number>;
const bodies = new Map<string, Buffer>();
for (const [key, size] of Object.entries(sizes)) bodies.set(key, Buffer.from(`"${'x'.repeat(Math.max(0, size - 2))}"`));
const fallback = Buffer.from('{}');

const server = createServer((req, res) => {
  const body = bodies.get(`${req.method} ${req.url}`) ?? fallback;
  const answer = () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
  if (req.method === 'GET' || req.method === 'HEAD') {
    req.resume();
    answer();
  } else {
    req.on('data', () => undefined);
    req.on('end', answer);
  }
});
server.listen(0, '127.0.0.1', () => {
  serveServerAsks();
  process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
