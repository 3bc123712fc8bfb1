/**
 * `git http-backend` as a CGI program: the request becomes its environment and stdin, its output
 * (CGI headers, a blank line, the body) becomes the response.
 */
import { spawn } from 'node:child_process';
import { gitEnv } from './repository.js';

export interface CgiRequest {
  projectRoot: string;
  /** e.g. /repo.git/info/refs */
  pathInfo: string;
  method: string;
  query: string;
  contentType: string | null;
  contentEncoding: string | null;
  gitProtocol: string | null;
  remoteUser: string;
  body: Buffer;
}

function split(output: Buffer): { head: string; body: Buffer } {
  for (const sep of ['\r\n\r\n', '\n\n']) {
    const at = output.indexOf(sep);
    if (at >= 0) return { head: output.subarray(0, at).toString('latin1'), body: output.subarray(at + sep.length) };
  }
  return { head: output.toString('latin1'), body: Buffer.alloc(0) };
}

export function httpBackend(req: CgiRequest): Promise<Response> {
  const env = gitEnv({
    GIT_PROJECT_ROOT: req.projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: req.pathInfo,
    REQUEST_METHOD: req.method,
    QUERY_STRING: req.query,
    CONTENT_TYPE: req.contentType ?? '',
    CONTENT_LENGTH: String(req.body.length),
    REMOTE_USER: req.remoteUser,
    REMOTE_ADDR: '127.0.0.1',
    ...(req.contentEncoding ? { HTTP_CONTENT_ENCODING: req.contentEncoding } : {}),
    ...(req.gitProtocol ? { GIT_PROTOCOL: req.gitProtocol } : {}),
  });
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.stdin.on('error', () => {}); // the backend may stop reading early on a bad request
    child.on('close', () => {
      const { head, body } = split(Buffer.concat(out));
      let status = 200;
      const headers = new Headers();
      for (const line of head.split(/\r?\n/)) {
        const cut = line.indexOf(':');
        if (cut < 0) continue;
        const name = line.slice(0, cut).trim();
        const value = line.slice(cut + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
        else headers.append(name, value);
      }
      if (out.length === 0) {
        resolve(
          new Response(`git http-backend failed: ${Buffer.concat(err).toString('utf8').slice(0, 200)}`, {
            status: 500,
          }),
        );
        return;
      }
      resolve(new Response(status === 204 || status === 304 ? null : new Uint8Array(body), { status, headers }));
    });
    child.stdin.end(req.body);
  });
}
