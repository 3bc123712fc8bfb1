import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KEPT_PREFIX,
  MASK,
  isSecretName,
  mask,
  redact,
  redactBody,
  redactExchange,
  redactHeaders,
  redactText,
  redactUrl,
} from '../../suites/report/redact.js';
import { SECRETS, fixtureReport, leakedSecrets } from './fixture.js';

/** Fixed in CI; fast-check prints the seed and the counterexample when a property fails. */
const SEED = Number(process.env.FC_SEED ?? 20261121);
const RUNS = 300;
const assertProperty = (property: fc.IPropertyWithHooks<any> | fc.IProperty<any>) =>
  fc.assert(property, { seed: SEED, numRuns: RUNS });

const TOKEN_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'];
const secretArb = fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 8, maxLength: 64 });
const SECRET_NAMES = [
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'password',
  'code',
  'code_verifier',
  'device_code',
  'token',
  'private_token',
  'clientSecret',
  'user[password]',
  'user%5Bpassword%5D',
  'authenticity_token',
];
const nameArb = fc.constantFrom(...SECRET_NAMES);

/** Every place a secret travels, as a function from the secret to the redacted text. */
const CARRIERS: Record<string, (name: string, secret: string) => string> = {
  'URL query': (name, secret) => redactUrl(`http://127.0.0.1:3000/oauth/token/info?page=2&${name}=${secret}&x=1`),
  'URL fragment': (name, secret) => redactUrl(`http://127.0.0.1/cb#state=s&${name}=${secret}`),
  'form body': (name, secret) =>
    redactBody(`grant_type=authorization_code&${name}=${secret}`, 'application/x-www-form-urlencoded'),
  'JSON body': (name, secret) =>
    redactBody(JSON.stringify({ grant_type: 'x', nested: [{ [name]: secret }] }), 'application/json'),
  'pretty JSON body': (name, secret) => redactBody(JSON.stringify({ [name]: secret, ok: true }, null, 2), ''),
  'message text': (name, secret) => redactText(`expected a failure, but ${name}: ${secret} was accepted`),
  'log assignment': (name, secret) => redactText(`${name}="${secret}"`),
  'HTML hidden field': (name, secret) =>
    redactBody(`<form><input type="hidden" name="${name}" value="${secret}"></form>`, 'text/html'),
  'Authorization header': (_name, secret) => JSON.stringify(redactHeaders({ Authorization: `Bearer ${secret}` })),
  'PRIVATE-TOKEN header': (_name, secret) => JSON.stringify(redactHeaders({ 'PRIVATE-TOKEN': secret })),
  'Cookie header': (_name, secret) => JSON.stringify(redactHeaders({ Cookie: `a=1; _session=${secret}` })),
  'Set-Cookie header': (_name, secret) =>
    JSON.stringify(redactHeaders({ 'set-cookie': `_session=${secret}; Path=/; HttpOnly` })),
  'Location header': (name, secret) =>
    JSON.stringify(redactHeaders({ Location: `http://127.0.0.1/cb?${name}=${secret}&state=x` })),
  'Authorization in text': (_name, secret) => redactText(`sent Authorization: Basic ${secret} and got 200`),
  'URL userinfo': (_name, secret) => redactUrl(`https://oauth2:${secret}@127.0.0.1/group/project.git`),
};

describe('every carrier of a secret is masked', () => {
  for (const [carrier, render] of Object.entries(CARRIERS)) {
    it(carrier, () => {
      assertProperty(
        fc.property(nameArb, secretArb, (name, secret) => {
          const template = render(name, 'PLACEHOLDER');
          fc.pre(!template.includes(secret) && !secret.includes('PLACEHOLDER'));
          // In prose (`name: value`) a plain word is the harness's own; secrets there are masked by value.
          if (carrier === 'message text')
            fc.pre(!/^[A-Za-z]+(-[A-Za-z]+)*[.]*$/.test(secret) && !secret.startsWith('/'));
          const out = render(name, secret);
          expect(out).not.toContain(secret);
          // What stays is the fixed prefix (long secrets) or nothing.
          expect(out).toContain(secret.length >= KEPT_PREFIX * 3 ? secret.slice(0, KEPT_PREFIX) + MASK : MASK);
        }),
      );
    });
  }
});

describe('redaction is idempotent', () => {
  const fragment = fc.oneof(
    fc.string(),
    fc.tuple(nameArb, secretArb).map(([n, s]) => `${n}=${s}`),
    fc.tuple(nameArb, secretArb).map(([n, s]) => `"${n}": "${s}"`),
    secretArb.map((s) => `Authorization: Bearer ${s}`),
    secretArb.map((s) => `Bearer ${s}`),
    secretArb.map((s) => `Cookie: x=${s}`),
    fc.constantFrom(' ', '&', '?', '\n', ': ', '=', '"', MASK, SECRETS.idToken),
  );
  it('redactText(redactText(x)) = redactText(x)', () => {
    assertProperty(
      fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
        const once = redactText(parts.join(''));
        expect(redactText(once)).toBe(once);
      }),
    );
  });
  it('redact(redact(report)) = redact(report)', () => {
    const once = redact(fixtureReport());
    expect(redact(once)).toEqual(once);
  });
  // redactText remembers short texts it found nothing to mask in; a caller's secrets still apply.
  it('a text once found clean is masked when the caller names it a secret', () => {
    const text = 'plainwordsthatmaskednothing';
    expect(redactText(text)).toBe(text);
    expect(redactText(text)).toBe(text);
    expect(redactText(`x ${text} y`, { secrets: [text] })).not.toContain(text);
    expect(redactText(text, { secrets: [text] })).not.toContain(text);
  });
});

describe('what is not a secret stays byte for byte', () => {
  const benign = fc.constantFrom(
    'page=2',
    'per_page=100',
    'Link: <http://127.0.0.1/api/v4/projects?page=2&per_page=20>; rel="next"',
    'token_type: bearer',
    '"token_type":"Bearer"',
    'error code: invalid_grant',
    'status code: 404',
    'expires_in=7200',
    '/api/v4/projects/group%2Fsub%2Fproject',
    'scope=api+read_user',
    'Bearer tokens are case-insensitive',
    'response_type=code',
    'code_challenge_method=S256',
    'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code',
    'token_type_hint=refresh_token',
    '"expires_in": null',
    'http://127.0.0.1:3000/oauth/token',
    'code: expected a refusal, got a token response',
    'revoked access token: /oauth/token/info must refuse it',
    'code: ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    'page_token=[redacted]',
  );
  const word = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
    minLength: 1,
    maxLength: 10,
  });
  it('protocol words, pagination and encodings are untouched', () => {
    assertProperty(
      fc.property(fc.array(fc.oneof(benign, word), { maxLength: 10 }), (parts) => {
        const text = parts.join(' ');
        expect(redactText(text)).toBe(text);
      }),
    );
  });
  it('a path ending in a secret-looking name is no field: its colon is followed by the harness own words (review 21)', () => {
    const unreachable = 'POST /oauth/token: 127.0.0.1:36011 is unreachable (ECONNREFUSED)';
    expect(redactText(unreachable)).toBe(unreachable);
    expect(redactText('GET /oauth/token/info: 127.0.0.1:8080 refused')).toBe(
      'GET /oauth/token/info: 127.0.0.1:8080 refused',
    );
    // A real token after a name stays masked, after such a path too.
    const token = SECRETS.accessToken;
    const masked = `${token.slice(0, KEPT_PREFIX)}${MASK}`;
    expect(redactText(`token: ${token}`)).toBe(`token: ${masked}`);
    expect(redactText(`POST /oauth/token: token: ${token}`)).toBe(`POST /oauth/token: token: ${masked}`);
    expect(redactText(`access_token=${token}`)).toBe(`access_token=${masked}`);
  });
  it('a URL keeps its raw encoding around the masked value', () => {
    const url = `http://127.0.0.1/api/v4/projects/a%2Fb%2Fc/issues?labels[]=x%2By&access_token=${SECRETS.accessToken}#frag`;
    expect(redactUrl(url)).toBe(
      `http://127.0.0.1/api/v4/projects/a%2Fb%2Fc/issues?labels[]=x%2By&access_token=${SECRETS.accessToken.slice(0, KEPT_PREFIX)}${MASK}#frag`,
    );
  });
});

describe('large and adversarial bodies', () => {
  // Patterns that backtrack per position would take minutes on these; the test timeout catches that.
  const shapes = ['x', 'a.', 'eyJ', '<input ', 'http://a', 'code', '"k":"', 'Bearer ', 'a=b&', '%5B'];
  for (const shape of shapes) {
    it(`${JSON.stringify(shape)} repeated to 200,000 characters`, () => {
      const body = shape.repeat(Math.ceil(200_000 / shape.length));
      expect(redactBody(body, 'text/plain').length).toBeGreaterThan(0);
      expect(redactText(body).length).toBeGreaterThan(0);
    });
  }
});

describe('helpers', () => {
  it('masks to a fixed prefix, short values whole', () => {
    expect(mask('abcdefghijklmnop')).toBe(`abcd${MASK}`);
    expect(mask('hunter2')).toBe(MASK);
    expect(mask(`abcd${MASK}`)).toBe(`abcd${MASK}`);
  });
  it('recognises secret names in every notation', () => {
    for (const name of [
      ...SECRET_NAMES,
      'PRIVATE-TOKEN',
      'Authorization',
      'personalAccessToken',
      'user_code',
      'csrf-token',
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of [
      'token_type',
      'token_type_hint',
      'code_challenge',
      'code_challenge_method',
      'response_type',
      'scope',
      'state',
      'expires_in',
      'username',
      'user[login]',
      'redirect_uri',
    ])
      expect(isSecretName(name), name).toBe(false);
  });
  it('keeps the Authorization scheme and cookie names', () => {
    expect(
      redactHeaders({
        Authorization: `Bearer ${SECRETS.accessToken}`,
        'Set-Cookie': `_s=${SECRETS.session}; Path=/; HttpOnly`,
        'X-Total': '42',
      }),
    ).toEqual({
      Authorization: `Bearer AcCe${MASK}`,
      'Set-Cookie': `_s=SeSs${MASK}; Path=/; HttpOnly`,
      'X-Total': '42',
    });
  });
  it('masks every cookie of joined Set-Cookie headers, keeping Expires dates', () => {
    const joined = `a=${SECRETS.session}; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/, b=${SECRETS.csrf}; HttpOnly\nc=${SECRETS.accessToken}`;
    expect(redactHeaders({ 'set-cookie': joined })['set-cookie']).toBe(
      `a=SeSs${MASK}; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/, b=CsRf${MASK}; HttpOnly\nc=AcCe${MASK}`,
    );
  });
  it('masks everything under a secret JSON field, and keeps the scheme of an Authorization field', () => {
    const body = JSON.stringify({
      password: { value: SECRETS.password, history: [SECRETS.code] },
      headers: { Authorization: `Bearer ${SECRETS.accessToken}` },
    });
    const out = redactBody(body, 'application/json');
    expect(leakedSecrets(out)).toEqual([]);
    expect(JSON.parse(out).headers.Authorization).toBe(`Bearer AcCe${MASK}`);
  });
  it('masks known secret values wherever they are', () => {
    const secret = 'configured-but-shapeless value';
    expect(redactText(`oops: ${secret}!`, { secrets: [secret] })).toBe(`oops: conf${MASK}!`);
  });
  it('redacts a whole exchange and leaves JSON without secrets as sent', () => {
    const body = '{"id": 1,  "name": "x"}';
    const out = redactExchange({
      request: {
        method: 'POST',
        url: `http://h/oauth/revoke?token=${SECRETS.accessToken}`,
        headers: { 'Content-Type': 'application/json' },
        body: `{"token":"${SECRETS.accessToken}"}`,
      },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body },
    });
    expect(leakedSecrets(JSON.stringify(out))).toEqual([]);
    expect(out.request.body).toBe(`{"token":"AcCe${MASK}"}`);
    expect(out.response?.body).toBe(body);
  });
  it('redact() covers messages, counterexamples, exchanges and the target', () => {
    const report = fixtureReport();
    report.target = `https://user:${SECRETS.password}@idp.example.test`;
    report.checks[0].counterexample = `[{"refresh_token":"${SECRETS.refreshToken}"}]`;
    expect(leakedSecrets(JSON.stringify(redact(report)))).toEqual([]);
  });
});
