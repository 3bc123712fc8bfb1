/**
 * Redaction compared word for word: each carrier of a secret with its exact masked output, each
 * harmless word kept under a secret name (and its near miss masked), and a whole report with a
 * secret in every field that can carry one, `reproduce` included, against the report expected.
 */
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
import type { Report } from '../../suites/report/model.js';

const AT = 'AcCeSs7TokEnValuE0123456789abcdefXYZ';
const RT = 'ReFrEsH5TokEnValuE9876543210fedcbaQRS';
const PW = 'Hunter2-Correct-Horse-Battery';
const PAT = 'glpat-PersonalAccess0Token1234';
const SID = 'SeSsIoN0cookie1value2abcdef345';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const m = (s: string) => `${s.slice(0, KEPT_PREFIX)}${MASK}`;

describe('mask', () => {
  it('keeps four characters of a value of twelve or more, nothing of a shorter one', () => {
    expect(KEPT_PREFIX).toBe(4);
    expect(MASK).toBe('…');
    expect(mask('abcdefghijkl')).toBe('abcd…');
    expect(mask('abcdefghijk')).toBe('…');
    expect(mask('')).toBe('…');
    expect(mask('abcd…')).toBe('abcd…');
    expect(mask('…')).toBe('…');
    expect(mask('abcde…')).toBe('…');
    expect(mask('abcd…x')).toBe('…');
  });
});

describe('isSecretName', () => {
  it.each([
    'code',
    'device_code',
    'user_code',
    'authorization_code',
    'Authorization',
    'Proxy-Authorization',
    'Cookie',
    'Set-Cookie',
    'access_token',
    'client_secret',
    'password',
    'passwd',
    'code_verifier',
    'x-api-key',
    'private_key',
    'user[password]',
    'user%5Bpassword%5D',
    'a[b][access_token]',
  ])('%s is secret', (name) => expect(isSecretName(name)).toBe(true));

  it.each([
    'codes',
    'token_type',
    'secretive',
    'user[]',
    'user[login]',
    'password[login]',
    '',
    '---',
    '[]',
    '%E0%A4%A',
    'my_code_name',
  ])('%s is not', (name) => expect(isSecretName(name)).toBe(false));

  it('reads a name whose escapes are broken as it is', () => {
    expect(isSecretName('%E0%A4%Apassword')).toBe(true);
  });
});

describe('harmless values under a secret name stay word for word', () => {
  const WORDS = [
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'unauthorized_client',
    'unsupported_grant_type',
    'invalid_scope',
    'access_denied',
    'authorization_pending',
    'slow_down',
    'expired_token',
    'invalid_token',
    'insufficient_scope',
    'server_error',
    'temporarily_unavailable',
    'unsupported_response_type',
    'bearer',
    'Bearer',
    'S256',
    'plain',
    'expired',
    'revoked',
    'missing',
    'unknown',
    'invalid',
    'valid',
    'absent',
    'present',
    'redacted',
    'REDACTED',
    'null',
    'true',
    'false',
    'undefined',
    '0',
    '1234567',
    '',
  ];
  it.each(WORDS.map((w) => [w]))('token: %j', (word) => {
    expect(redactText(`token: ${word}`)).toBe(`token: ${word}`);
    expect(redactText(`"token":"${word}"`)).toBe(`"token":"${word}"`);
  });

  it('near misses shaped like a credential are masked; plain words stay prose (issue 10)', () => {
    expect(redactText('token: 12345678')).toBe('token: …');
    // A word after "token:" is the harness's own prose, never a credential: it is kept.
    expect(redactText('token: nulls')).toBe('token: nulls');
    expect(redactText('token: xnull')).toBe('token: xnull');
    expect(redactText('token: NULL')).toBe('token: NULL');
    // lower_snake words after "token:" are prose too (an OAuth error code, a near miss of one): no
    // credential the project issues or reads has that shape, and the run's own are masked by value.
    expect(redactText('token: invalid_grantx')).toBe('token: invalid_grantx');
    expect(redactText('token: s256')).toBe('token: …');
    expect(redactText('token: a1234567')).toBe('token: …');
  });
});

describe('redactText, each carrier exactly', () => {
  it('credential headers written in text keep their name, separator and scheme', () => {
    expect(redactText(`sent Authorization: Bearer ${AT} twice`)).toBe(`sent Authorization: Bearer ${m(AT)} twice`);
    expect(redactText(`authorization="Basic xyz12345",`)).toBe('authorization="Basic …",');
    expect(redactText(`Proxy-Authorization: ${AT}`)).toBe(`Proxy-Authorization: ${m(AT)}`);
    expect(redactText(`'authorization' = 'Digest ${AT}'`)).toBe(`'authorization' = 'Digest ${m(AT)}'`);
    expect(redactText('Authorization: Bearer expired')).toBe('Authorization: Bearer expired');
    // The closing bracket of prose around a credential is the prose's, never the token's.
    expect(redactText(`(PRIVATE-TOKEN: ${PAT}) [Authorization: Basic ${AT}] {job-token=${RT}}`)).toBe(
      `(PRIVATE-TOKEN: ${m(PAT)}) [Authorization: Basic ${m(AT)}] {job-token=${m(RT)}}`,
    );
    expect(redactText(`PRIVATE-TOKEN: ${PAT}; JOB-TOKEN=${AT} deploy-token:"${RT}"`)).toBe(
      `PRIVATE-TOKEN: ${m(PAT)}; JOB-TOKEN=${m(AT)} deploy-token:"${m(RT)}"`,
    );
    expect(redactText('private-token: missing')).toBe('private-token: missing');
  });

  it('cookies: every value of Cookie, the first pair only of Set-Cookie', () => {
    expect(redactText(`Cookie: _s=${SID}; theme=dark; n=42`)).toBe(`Cookie: _s=${m(SID)}; theme=…; n=42`);
    expect(redactText(`Set-Cookie: _s=${SID}; Path=/; Max-Age=3600; HttpOnly`)).toBe(
      `Set-Cookie: _s=${m(SID)}; Path=/; Max-Age=3600; HttpOnly`,
    );
    expect(redactText(`set-cookie: "_s=${SID}"`)).toBe(`set-cookie: "_s=${m(SID)}"`);
  });

  it('a bare Bearer token in free text is masked when it looks like a credential', () => {
    expect(redactText(`the API took Bearer ${AT} after revocation`)).toBe(
      `the API took Bearer ${m(AT)} after revocation`,
    );
    expect(redactText('Bearer abcdefghijklmnop')).toBe('Bearer abcd…');
    expect(redactText('Bearer abcdefghijklmno')).toBe('Bearer abcdefghijklmno');
    expect(redactText('Bearer abcd1234')).toBe('Bearer …');
    expect(redactText('Bearer abcdefgh')).toBe('Bearer abcdefgh');
    expect(redactText('Bearer abc1234')).toBe('Bearer abc1234');
    expect(redactText('Bearer\tab/c+d.e_f~g-h1== x')).toBe('Bearer\tab/c… x');
    expect(redactText('Bearer tokens are case-insensitive')).toBe('Bearer tokens are case-insensitive');
    expect(redactText('xBearer abcdefghijklmnop')).toBe('xBearer abcdefghijklmnop');
  });

  it('a JWT anywhere in text', () => {
    expect(redactText(`got ${JWT} back`)).toBe(`got eyJh${MASK} back`);
    expect(redactText(`(${JWT})`)).toBe(`(eyJh${MASK})`);
    expect(redactText('eyJ.x')).toBe('eyJ.x');
  });

  it('a URL password, not the user', () => {
    expect(redactText(`clone https://oauth2:${PW}@127.0.0.1/g/p.git now`)).toBe(
      `clone https://oauth2:${m(PW)}@127.0.0.1/g/p.git now`,
    );
    expect(redactText('https://user@127.0.0.1/')).toBe('https://user@127.0.0.1/');
  });

  it('secret-named pairs in every notation, other pairs untouched', () => {
    expect(redactText(`a=1&client_secret=${PW}&page=2`)).toBe(`a=1&client_secret=${m(PW)}&page=2`);
    expect(redactText(`{"refresh_token": "${RT}", "n": 1}`)).toBe(`{"refresh_token": "${m(RT)}", "n": 1}`);
    expect(redactText(`password='${PW}'`)).toBe(`password='${m(PW)}'`);
    expect(redactText(`code: "a\\"${PW}"`)).toBe(`code: "a\\"H${MASK}"`);
    expect(redactText(`user[password]=${PW}#x`)).toBe(`user[password]=${m(PW)}#x`);
    expect(redactText(`next: http://h/cb?state=s&code=${AT}`)).toBe(`next: http://h/cb?state=s&code=${m(AT)}`);
    expect(redactText(`code=`)).toBe('code=');
    expect(redactText(`state=${AT} scope=api`)).toBe(`state=${AT} scope=api`);
    expect(redactText(`x.code=${AT}`)).toBe(`x.code=${AT}`);
  });

  it('hidden form fields and meta tags with secret names, other fields kept', () => {
    expect(redactText(`<input type="hidden" name="authenticity_token" value="${AT}">`)).toBe(
      `<input type="hidden" name="authenticity_token" value="${m(AT)}">`,
    );
    expect(redactText(`<meta name='csrf-token' content='${AT}'>`)).toBe(`<meta name='csrf-token' content='${m(AT)}'>`);
    expect(redactText(`<input name="username" value="${AT}">`)).toBe(`<input name="username" value="${AT}">`);
    expect(redactText(`<input value="${AT}">`)).toBe(`<input value="${AT}">`);
  });

  it('known secret values wherever they are; below four characters where they stand alone (review 13)', () => {
    expect(redactText('a xyz b xyz', { secrets: ['xyz', 'ab'] })).toBe('a … b …');
    expect(redactText('a ab b cab abc', { secrets: ['ab'] })).toBe('a … b cab abc');
    expect(redactText('wxyz xyz1', { secrets: ['xyz'] })).toBe('wxyz xyz1');
    expect(redactText('wxyz', { secrets: ['wxyz'] })).toBe('…');
    expect(redactText(`see ${PW}!`, { secrets: [PW] })).toBe(`see ${m(PW)}!`);
    expect(redactText('abcd… stays', { secrets: ['abcd…'] })).toBe('abcd… stays');
    expect(redactUrl(`http://h/x/${PW}`, { secrets: [PW] })).toBe(`http://h/x/${m(PW)}`);
  });
});

describe('headers and bodies exactly', () => {
  it('redactHeaders: scheme kept, cookie names kept, secret-named headers masked, others scanned', () => {
    expect(
      redactHeaders(
        {
          Authorization: `Bearer ${AT}`,
          'proxy-authorization': AT,
          'x-odd-auth': `  Bearer   ${AT}  `,
          Cookie: `a=${SID}; b=1`,
          'Set-Cookie': `a=${SID}; Path=/, b=${RT}; HttpOnly`,
          'PRIVATE-TOKEN': PAT,
          'X-Csrf-Token': 'missing',
          Location: `http://h/cb?code=${AT}&state=s`,
          'x-known': `v ${PW}`,
        },
        { secrets: [PW] },
      ),
    ).toEqual({
      Authorization: `Bearer ${m(AT)}`,
      'proxy-authorization': m(AT),
      'x-odd-auth': `  Bearer   ${m(AT)}  `,
      Cookie: `a=${m(SID)}; b=1`,
      'Set-Cookie': `a=${m(SID)}; Path=/, b=${m(RT)}; HttpOnly`,
      'PRIVATE-TOKEN': m(PAT),
      'X-Csrf-Token': 'missing',
      Location: `http://h/cb?code=${m(AT)}&state=s`,
      'x-known': `v ${m(PW)}`,
    });
    expect(redactHeaders({ authorization: 'Bearer invalid' })).toEqual({ authorization: 'Bearer invalid' });
    expect(redactHeaders({ authorization: `Bearer ${AT} ${RT}` })).toEqual({ authorization: m(`Bearer ${AT} ${RT}`) });
  });

  it('redactBody: JSON by content type or shape, compact or pretty, unchanged JSON kept byte for byte', () => {
    expect(redactBody(`{"access_token":"${AT}","n":1}`, 'application/json')).toBe(`{"access_token":"${m(AT)}","n":1}`);
    expect(redactBody(`{"access_token":"${AT}",\n"n":1}`)).toBe(`{\n  "access_token": "${m(AT)}",\n  "n": 1\n}`);
    expect(redactBody(`  [{"password":"${PW}"}]`, 'text/plain')).toBe(`[{"password":"${m(PW)}"}]`);
    expect(redactBody('{ "n" :  1 }', 'application/json')).toBe('{ "n" :  1 }');
    expect(redactBody(`{ "msg": "took Bearer ${AT}" }`, 'application/json')).toBe(`{"msg":"took Bearer ${m(AT)}"}`);
    expect(redactBody(`{broken access_token=${AT}`, 'application/json')).toBe(`{broken access_token=${m(AT)}`);
    expect(redactBody(`access_token=${AT}&x=1`, 'application/x-www-form-urlencoded')).toBe(`access_token=${m(AT)}&x=1`);
    expect(
      redactBody(
        JSON.stringify({ headers: { Authorization: `Bearer ${AT}` }, secret: { a: [AT, 7, null], b: 'missing' } }),
        'application/json',
      ),
    ).toBe(
      JSON.stringify({ headers: { Authorization: `Bearer ${m(AT)}` }, secret: { a: [m(AT), 7, null], b: 'missing' } }),
    );
    expect(redactBody(JSON.stringify({ list: [`code=${AT}`, true] }), 'application/json')).toBe(
      JSON.stringify({ list: [`code=${m(AT)}`, true] }),
    );
  });

  it('redactExchange keeps method, status and absent bodies absent', () => {
    expect(
      redactExchange({
        request: { method: 'GET', url: `http://h/?access_token=${AT}`, headers: {} },
      }),
    ).toEqual({ request: { method: 'GET', url: `http://h/?access_token=${m(AT)}`, headers: {} } });
    expect(
      redactExchange({
        request: {
          method: 'POST',
          url: 'http://h/',
          headers: { 'Content-Type': 'text/plain' },
          body: `{"code":"${AT}"}`,
        },
        response: { status: 401, headers: { 'Content-Type': 'text/plain' } },
      }),
    ).toEqual({
      request: {
        method: 'POST',
        url: 'http://h/',
        headers: { 'Content-Type': 'text/plain' },
        body: `{"code":"${m(AT)}"}`,
      },
      response: { status: 401, headers: { 'Content-Type': 'text/plain' } },
    });
  });
});

describe('redact: a secret in every field a report can carry one in', () => {
  function report(): Report {
    return {
      tool: 'idp-conformance',
      version: '0.1.0',
      target: `https://ci:${PW}@idp.test/?private_token=${PAT}`,
      release: '18.0',
      offering: 'self-managed',
      seed: 7,
      startedAt: '2026-11-23T00:00:00.000Z',
      durationMs: 10,
      summary: { passed: 0, failed: 1, warned: 0, skipped: 1, errored: 0 },
      rules: [
        {
          id: 'R-1',
          title: 'a rule',
          level: 'must',
          source: 'Errors',
          origin: 'source',
          status: 'failed',
          checks: ['s.one', 's.two'],
        },
      ],
      checks: [
        {
          id: 's.one',
          suite: 's',
          title: 'one',
          rules: ['R-1'],
          broken: ['R-1'],
          status: 'failed',
          durationMs: 5,
          message: `refresh accepted: refresh_token=${RT}, Cookie: _s=${SID}`,
          counterexample: `[{"password":"${PW}"}, "Bearer ${AT}", "${JWT}"]`,
          exchange: [
            {
              request: {
                method: 'POST',
                url: `http://idp.test/oauth/token?client_secret=${PW}`,
                headers: { Authorization: `Bearer ${AT}`, 'content-type': 'application/x-www-form-urlencoded' },
                body: `grant_type=refresh_token&refresh_token=${RT}`,
              },
              response: {
                status: 200,
                headers: { 'Set-Cookie': `_s=${SID}; Path=/`, 'content-type': 'application/json' },
                body: `{"access_token":"${AT}","id_token":"${JWT}"}`,
              },
            },
          ],
          reproduce: `idp-conformance run --check s.one --seed 7 --target 'https://ci:${PW}@idp.test/?private_token=${PAT}'`,
        },
        {
          id: 's.two',
          suite: 's',
          title: 'two',
          rules: ['R-1'],
          status: 'skipped',
          durationMs: 0,
          message: `skipped with Bearer ${AT}`,
        },
      ],
    };
  }

  it('masks each of them and leaves everything else as it was', () => {
    const input = report();
    const out = redact(input);
    expect(out).toEqual({
      ...report(),
      target: `https://ci:${m(PW)}@idp.test/?private_token=${m(PAT)}`,
      checks: [
        {
          ...report().checks[0],
          message: `refresh accepted: refresh_token=${m(RT)}, Cookie: _s=${m(SID)}`,
          counterexample: `[{"password":"${m(PW)}"}, "Bearer ${m(AT)}", "eyJh${MASK}"]`,
          exchange: [
            {
              request: {
                method: 'POST',
                url: `http://idp.test/oauth/token?client_secret=${m(PW)}`,
                headers: { Authorization: `Bearer ${m(AT)}`, 'content-type': 'application/x-www-form-urlencoded' },
                body: `grant_type=refresh_token&refresh_token=${m(RT)}`,
              },
              response: {
                status: 200,
                headers: { 'Set-Cookie': `_s=${m(SID)}; Path=/`, 'content-type': 'application/json' },
                body: `{"access_token":"${m(AT)}","id_token":"eyJh${MASK}"}`,
              },
            },
          ],
          reproduce: `idp-conformance run --check s.one --seed 7 --target 'https://ci:${m(PW)}@idp.test/?private_token=${m(PAT)}'`,
        },
        { ...report().checks[1], message: `skipped with Bearer ${m(AT)}` },
      ],
    });
    expect(input).toEqual(report());
    expect(out.rules[0]).not.toBe(input.rules[0]);
    expect(out.rules[0].checks).not.toBe(input.rules[0].checks);
    expect(out.summary).not.toBe(input.summary);
  });

  it('masks the known secrets given, in every field', () => {
    const r = report();
    r.checks[1].message = `saw ${'plain-secret-value'}`;
    expect(redact(r, { secrets: ['plain-secret-value'] }).checks[1].message).toBe(`saw ${m('plain-secret-value')}`);
  });
});

describe('one character of notation changed at a time', () => {
  it('placeholders the harness writes are kept; a word around one is not a placeholder', () => {
    for (const kept of ['redacted', 'REDACTED', '[redacted]', '[REDACTED]', '[redacted', 'redacted]'])
      expect(redactText(`"token":"${kept}"`), kept).toBe(`"token":"${kept}"`);
    for (const near of ['xredacted', 'redactedx', '[redacted]x', 'x[redacted]', 'Redacted'])
      expect(redactText(`"token":"${near}"`), near).toBe('"token":"…"');
  });

  it('a[b] is judged by b, an empty b by the whole name', () => {
    expect(isSecretName('x[code]')).toBe(true);
    expect(isSecretName('state[code]')).toBe(true);
    expect(isSecretName('password[]')).toBe(true);
    expect(isSecretName('x[y][code]')).toBe(true);
  });

  it('credential headers in text: however the separator is spaced or quoted', () => {
    expect(redactText(`Authorization: Bearer  ${AT}`)).toBe(`Authorization: Bearer  ${m(AT)}`);
    // A header-style token is masked whatever its shape, where a prose pair would keep a word.
    expect(redactText('PRIVATE-TOKEN: hunter')).toBe('PRIVATE-TOKEN: …');
    expect(redactText('PRIVATE-TOKEN:hunter')).toBe('PRIVATE-TOKEN:…');
    expect(redactText('PRIVATE-TOKEN : hunter')).toBe('PRIVATE-TOKEN : …');
    expect(redactText('job-token=hunter')).toBe('job-token=…');
    expect(redactText(`{"Cookie": "_s=${SID}"}`)).toBe(`{"Cookie": "_s=${m(SID)}"}`);
    expect(redactText(`Cookie : _s=${SID}`)).toBe(`Cookie : _s=${m(SID)}`);
    expect(redactText(`Cookie:_s=${SID}`)).toBe(`Cookie:_s=${m(SID)}`);
  });

  it('names that only start like a header are ordinary secret names', () => {
    expect(redactText(`authorization_code=${AT}`)).toBe(`authorization_code=${m(AT)}`);
    expect(redactText(`cookie_token=${AT}`)).toBe(`cookie_token=${m(AT)}`);
  });

  it('a quoted name is a field, not prose: its bare word value is masked', () => {
    expect(redactText('"password": hunter')).toBe('"password": …');
    expect(redactText('password: hunter')).toBe('password: hunter');
  });

  it('prose after a secret name: lower_snake words stay (an OAuth error code), any other shape goes', () => {
    // Before, the first two were masked, and a check's message was reworded around it.
    expect(redactText('the code: unsupported_grant_type, as expected')).toBe(
      'the code: unsupported_grant_type, as expected',
    );
    expect(redactText('token: access_denied.')).toBe('token: access_denied.');
    // The simulator's secrets are random base64url: a digit, a capital or a hyphen in them is enough.
    expect(redactText('token: abc_def1')).toBe('token: …');
    expect(redactText('token: abc_Def')).toBe('token: …');
    expect(redactText('token: _abc_def')).toBe('token: …');
    expect(redactText('token: abc_def-ghi_jkl')).toBe('token: abc_…');
    // Not prose: a quoted field's value is masked whatever its shape.
    expect(redactText('"token": "invalid_grantx"')).toBe('"token": "inva…"');
  });

  it('prose after a secret name: hyphenated words and URLs stay, a URL-like credential goes', () => {
    expect(redactText('code: well-known.')).toBe('code: well-known.');
    expect(redactText('code: https://idp.test/cb')).toBe('code: https://idp.test/cb');
    expect(redactText('code: git+ssh://idp.test/g')).toBe('code: git+ssh://idp.test/g');
    expect(redactText('token: 1abc://h')).toBe('token: …');
  });

  it('hidden fields with spaces around their =', () => {
    expect(redactText(`<input name ="password" value="${PW}">`)).toBe(`<input name ="password" value="${m(PW)}">`);
    expect(redactText(`<input name= "password" value ="${PW}">`)).toBe(`<input name= "password" value ="${m(PW)}">`);
    expect(redactText(`<meta name="csrf-token" content= '${AT}'>`)).toBe(
      `<meta name="csrf-token" content= '${m(AT)}'>`,
    );
  });

  it('cookie headers: every separator spelling', () => {
    expect(redactHeaders({ Cookie: `a=1;b=${SID};  c=${RT}` })).toEqual({ Cookie: `a=1;b=${m(SID)};  c=${m(RT)}` });
    expect(redactHeaders({ 'set-cookie': `a=${SID},b=${RT}\n  c=${AT}` })).toEqual({
      'set-cookie': `a=${m(SID)},b=${m(RT)}\n  c=${m(AT)}`,
    });
    expect(redactHeaders({ 'set-cookie': `a=${SID}; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=${RT}` })).toEqual({
      'set-cookie': `a=${m(SID)}; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=${m(RT)}`,
    });
  });

  it('Authorization values keep their scheme whatever the spacing; Proxy-Authorization too', () => {
    expect(redactHeaders({ Authorization: `  Bearer  ${AT} ` })).toEqual({ Authorization: `  Bearer  ${m(AT)}` });
    expect(redactHeaders({ 'Proxy-Authorization': `Basic ${AT}` })).toEqual({
      'Proxy-Authorization': `Basic ${m(AT)}`,
    });
  });

  it('JSON: a secret field that is not Authorization is masked whole, scheme-like or not', () => {
    expect(redactBody('{"password":"Hunter two"}', 'application/json')).toBe('{"password":"…"}');
    expect(redactBody(`{"authorization":"Bearer ${AT}"}`, 'application/json')).toBe(
      `{"authorization":"Bearer ${m(AT)}"}`,
    );
  });

  it('the content type, found whatever its case, decides for JSON that does not look like an object', () => {
    const escaped = `"\\u0063ode=${AT}"`;
    expect(redactBody(escaped, 'application/json')).toBe(`"code=${m(AT)}"`);
    const exchange = redactExchange({
      request: { method: 'POST', url: 'http://h/', headers: { 'Content-Type': 'application/json' }, body: escaped },
      response: { status: 200, headers: { 'X-Other': 'x', 'CONTENT-TYPE': 'application/json' }, body: escaped },
    });
    expect(exchange.request.body).toBe(`"code=${m(AT)}"`);
    expect(exchange.response?.body).toBe(`"code=${m(AT)}"`);
    const untyped = redactExchange({
      request: { method: 'POST', url: 'http://h/', headers: { 'X-Other': 'x' }, body: `{"code":"${AT}"}` },
    });
    expect(untyped.request.body).toBe(`{"code":"${m(AT)}"}`);
  });
});
