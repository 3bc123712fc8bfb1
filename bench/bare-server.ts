/**
 * The runtime's limit: a bare `node:http` server that answers each request of the bench with a
 * fixed body of the size the simulator answers it with (argv[2]: JSON { "METHOD path": bytes }).
 * A POST's body is read to its end first, as any server must. argv[3], when given: microseconds
 * of CPU work before each answer (`npm run bench:calibrate`'s "bare + W µs" servers).
 */
import { createServer } from 'node:http';
import { fixedBodies, listenForBench } from './ipc.js';

const bodies = new Map([...fixedBodies()].map(([key, text]) => [key, Buffer.from(text)]));
const fallback = Buffer.from('{}');
/** A loop whose work V8 cannot drop (its result is kept). */
let sink = 0;
function spin(loops: number): void {
  for (let i = 0; i < loops; i++) sink = (sink + i * 7) % 1_000_003;
}
/**
 * Loops of spin() per µs of this process's CPU time, measured on CPU time rather than the clock
 * so that a busy machine, which preempts the measurement, does not shrink the work.
 */
function loopsPerMicrosecond(): number {
  spin(1_000_000); // compiled before it is measured
  const before = process.cpuUsage();
  spin(20_000_000);
  const used = process.cpuUsage(before);
  return 20_000_000 / (used.user + used.system);
}
const spinUs = Number(process.argv[3] ?? 0);
const loops = spinUs > 0 ? Math.round(spinUs * loopsPerMicrosecond()) : 0;

const server = createServer((req, res) => {
  const body = bodies.get(`${req.method} ${req.url}`) ?? fallback;
  const answer = () => {
    if (loops) spin(loops);
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
