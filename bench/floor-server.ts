/**
 * The simulator's own ceiling: its Node adapter in front of nothing. Each request is read as the
 * simulator reads it (the one URL parse, the headers, the body up to the route limit, a form body
 * parsed) and answered with the bare server's fixed body of the same size, so the gap between
 * this server and the bare one is what the adapter costs before any handler runs, and the gap
 * between this one and the simulator is what the simulator itself costs (argv[2]: as bare-server).
 */
import { createServer } from 'node:http';
import { limits } from '../spec/index.js';
import { toNodeListener } from '../simulator/adapters/node.js';
import { Reply } from '../simulator/http.js';
import { mediaType, requestUrl } from '../simulator/request.js';
import type { Sim, SimRequest } from '../simulator/types.js';
import { fixedBodies, listenForBench } from './ipc.js';

const bodies = fixedBodies();

async function answer(request: SimRequest): Promise<Reply> {
  const { pathname, search } = requestUrl(request);
  if (request.method !== 'GET' && mediaType(request) === 'application/x-www-form-urlencoded')
    new URLSearchParams(await request.text()).get('grant_type');
  const reply = new Reply(200, bodies.get(`${request.method} ${pathname}${search}`) ?? '{}');
  reply.headers.set('content-type', 'application/json');
  return reply;
}

// Only what the adapter calls: the rest of Sim is never reached.
const stub = {
  answer,
  bodyLimit: () => limits().requestBodyMaxBytes,
  tooLarge: () => new Reply(413, null),
} as unknown as Sim;

const server = createServer({ maxHeaderSize: 64 * 1024 }, toNodeListener(stub));
listenForBench(server);
