/**
 * The peer: node-oidc-provider (v9, npm) on 127.0.0.1 with the device flow on, one confidential
 * client allowed the device grant, and an RS256 key of the simulator's size (RSA 2048), so its
 * /jwks and device requests are comparable with the simulator's. Configured from its
 * documented options (features.deviceFlow, clients, jwks); nothing else is switched on.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveServerAsks } from './ipc.js';

export const CLIENT = { id: 'bench-device-client', secret: 'bench-device-client-secret-0123456789abcdef' };

// The peer runs as a bench needs it, not as a deployment: on Node 20 (oidc-provider 9 asks for 22
// and runs), with its in-memory development adapter. Its start-up warnings say so at every start,
// nothing about the figures, and buried the bench's progress lines: those lines, and only those,
// are dropped.
for (const level of ['warn', 'info'] as const) {
  const write = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('oidc-provider ')) return;
    write(...args);
  };
}

// A variable specifier: the package ships no type declarations, and this is the only place it is used.
const PACKAGE = 'oidc-provider';
const { default: Provider } = (await import(PACKAGE)) as {
  default: new (
    issuer: string,
    config: Record<string, unknown>,
  ) => { callback(): (req: unknown, res: unknown) => void; proxy: boolean };
};

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' };

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const provider = new Provider(url, {
  clients: [
    {
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  features: { deviceFlow: { enabled: true } },
  jwks: { keys: [jwk] },
  cookies: { keys: ['bench-cookie-key-not-a-secret'] },
  scopes: ['openid', 'offline_access', 'api'],
  ttl: { DeviceCode: 300 },
});
server.on('request', provider.callback());

serveServerAsks();
process.send!({ type: 'ready', url, clientId: CLIENT.id, clientSecret: CLIENT.secret });
