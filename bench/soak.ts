/**
 * `npm run soak`: every grant in a loop against the simulator over loopback HTTP, printing RSS at
 * start, after warm-up, at its peak and at the end (issue 13: flat within 1.5x of warm-up once
 * expired records are evicted). Bounded in time and count:
 *   SOAK_SECONDS (default 20, a smoke test; e.g. 300 for a real soak), SOAK_MAX_ROUNDS (100000).
 * The simulator clock moves one token lifetime every SOAK_ADVANCE_EVERY rounds (default 50) so that
 * codes, device codes, tokens and sessions expire as they would over hours.
 * Exit 0 always unless --strict and the end RSS is over 1.5x the warm-up RSS.
 */
import { createHash, randomBytes } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { limits } from '../spec/index.js';
import { createSimulator } from '../simulator/core.js';
import { serve } from '../simulator/adapters/node.js';
import type { TargetConfig } from '../spec/target-config.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
const MAX_ROUNDS = Number(process.env.SOAK_MAX_ROUNDS ?? 100_000);
const ADVANCE_EVERY = Number(process.env.SOAK_ADVANCE_EVERY ?? 50);
const STRICT = process.argv.includes('--strict');

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
function rss(): number {
  gc();
  return process.memoryUsage().rss;
}

/** A tiny cookie-keeping client (one browser): enough for the simulator's own pages. */
function browser(base: string) {
  const jar = new Map<string, string>();
  return async (path: string, init: RequestInit = {}): Promise<Response> => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(`${base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
}

function hiddenFields(html: string, formId: string): Record<string, string> {
  const form = new RegExp(`<form id="${formId}"[^>]*>([\\s\\S]*?)</form>`).exec(html)?.[1] ?? '';
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    out[m[1].replace(/&amp;/g, '&')] = m[2].replace(/&amp;/g, '&').replace(/&quot;/g, '"');
  return out;
}

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

async function ok(res: Response, what: string, status = [200]): Promise<Response> {
  if (!status.includes(res.status)) throw new Error(`${what}: status ${res.status}`);
  return res;
}

/** One round: code + PKCE through the forms, refresh, revoke; password; device; page views. */
async function round(base: string, config: TargetConfig): Promise<void> {
  const get = browser(base);
  const user = config.user!;
  const pub = config.applications!.public!;
  const conf = config.applications!.confidential!;

  // Sign-in page views without signing in create no session.
  for (let i = 0; i < 3; i++) await ok(await fetch(`${base}/users/sign_in`), 'sign-in page');

  const signInPage = await (await ok(await get('/users/sign_in'), 'sign-in page')).text();
  await ok(
    await get(
      '/users/sign_in',
      form({ ...hiddenFields(signInPage, 'sign-in'), 'user[login]': user.username, 'user[password]': user.password }),
    ),
    'sign in',
    [302],
  );
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    client_id: pub.clientId,
    redirect_uri: pub.redirectUri,
    response_type: 'code',
    state: randomBytes(8).toString('hex'),
    scope: 'api',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const consent = await (await ok(await get(`/oauth/authorize?${query}`), 'authorize')).text();
  const approved = await ok(
    await get('/oauth/authorize', form({ ...hiddenFields(consent, 'consent'), decision: 'approve' })),
    'consent',
    [302],
  );
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const token = (await (
    await ok(
      await fetch(
        `${base}/oauth/token`,
        form({
          grant_type: 'authorization_code',
          code,
          redirect_uri: pub.redirectUri,
          client_id: pub.clientId,
          code_verifier: verifier,
        }),
      ),
      'code exchange',
    )
  ).json()) as { access_token: string; refresh_token: string };
  const refreshed = (await (
    await ok(
      await fetch(
        `${base}/oauth/token`,
        form({ grant_type: 'refresh_token', refresh_token: token.refresh_token, client_id: pub.clientId }),
      ),
      'refresh',
    )
  ).json()) as { access_token: string };
  await ok(
    await fetch(`${base}/oauth/revoke`, form({ token: refreshed.access_token, client_id: pub.clientId })),
    'revoke',
  );

  await ok(
    await fetch(
      `${base}/oauth/token`,
      form({
        grant_type: 'password',
        username: user.username,
        password: user.password,
        client_id: conf.clientId,
        client_secret: conf.clientSecret!,
      }),
    ),
    'password grant',
  );

  const device = (await (
    await ok(
      await fetch(`${base}/oauth/authorize_device`, form({ client_id: pub.clientId, scope: 'api' })),
      'device authorization',
    )
  ).json()) as { device_code: string; user_code: string };
  await ok(
    await fetch(`${base}/-/simulator/device/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: device.user_code }),
    }),
    'device approve',
  );
  await ok(
    await fetch(
      `${base}/oauth/token`,
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: device.device_code,
        client_id: pub.clientId,
      }),
    ),
    'device poll',
  );
}

async function main(): Promise<void> {
  const sim = createSimulator({ release: '18.0', flags: { device_authorization_grant: true } });
  const served = await serve(sim);
  const base = served.url;
  const config = (await (await fetch(`${base}/-/simulator/config`)).json()) as TargetConfig;
  const advance = () =>
    fetch(`${base}/-/simulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: limits().accessTokenLifetime }),
    });

  const start = rss();
  const until = Date.now() + SECONDS * 1000;
  const warmUpRounds = Math.min(ADVANCE_EVERY * 2, MAX_ROUNDS);
  let warm = start;
  let peak = start;
  let rounds = 0;
  try {
    while (rounds < MAX_ROUNDS && (Date.now() < until || rounds < warmUpRounds)) {
      await round(base, config);
      rounds++;
      if (rounds % ADVANCE_EVERY === 0) {
        await advance();
        peak = Math.max(peak, rss());
      }
      if (rounds === warmUpRounds) warm = rss();
    }
  } finally {
    await served.close();
  }
  const end = rss();
  peak = Math.max(peak, end);
  const ratio = end / warm;
  const rows: [string, string][] = [
    ['rounds (all grants each)', String(rounds)],
    ['seconds', SECONDS.toString()],
    ['RSS start (MB)', mb(start)],
    [`RSS after warm-up, ${warmUpRounds} rounds (MB)`, mb(warm)],
    ['RSS peak (MB)', mb(peak)],
    ['RSS end (MB)', mb(end)],
    ['end / warm-up', ratio.toFixed(2)],
    ['flat within 1.5x', ratio <= 1.5 ? 'yes' : 'NO'],
  ];
  console.log('| soak | value |\n|---|---|');
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  console.log(`store sizes after the run: ${JSON.stringify(storeSizes(sim))}`);
  if (STRICT && ratio > 1.5) process.exitCode = 1;
}

/** Every record the store holds, live or not (what memory pays for). */
function storeSizes(sim: ReturnType<typeof createSimulator>): Record<string, number> {
  const s = sim.store;
  return {
    accessTokens: s.accessTokens.size,
    refreshTokens: s.refreshTokens.size,
    codes: s.codes.size,
    deviceCodes: s.deviceCodes.size,
    sessions: s.sessions.size,
  };
}

main().catch((error) => {
  console.error(`soak: ${(error as Error).message}`);
  process.exitCode = 2;
});
