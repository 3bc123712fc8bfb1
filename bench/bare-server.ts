/**
 * The runtime's limit: a bare `node:http` server that answers each request of the bench with a
 * fixed body of the size the simulator answers it with (argv[2]: JSON { "METHOD path": bytes }).
 * A POST's body is read to its end first, as any server must.
 */
import { createServer } from 'node:http';
import { fixedBodies, listenForBench } from './ipc.js';

const bodies = new Map([...fixedBodies()].map(([key, text]) => [key, Buffer.from(text)]));
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
listenForBench(server);
