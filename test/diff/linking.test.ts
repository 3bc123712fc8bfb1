/**
 * How `diff` judges each difference (issue 22): linked to a rule only where a failed assertion of
 * that rule concerned the exchange that showed it, and only on an operation spec/openapi.yaml
 * lists the rule for; `allowed` where the answer matches the spec's documented schema or the
 * assertions that judged it held; what a check did after its failure left out; the rest not
 * covered by any rule.
 */
import { describe, expect, it } from 'vitest';
import { createRecording, diffRecordings } from '../../suites/diff/index.js';
import { executeDiff } from '../../cli/diff.js';
import type { CheckResult, Difference, Exchange, Report } from '../../suites/report/model.js';
import { SETUP } from '../../suites/runner/run.js';

const BASE = 'http://127.0.0.1:4000';

function exchange(method: string, path: string, status: number, headers: Record<string, string>, body?: unknown) {
  return {
    request: { method, url: BASE + path, headers: {} },
    response: { status, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
  } satisfies Exchange;
}

const json = { 'content-type': 'application/json' };
const tokens = { access_token: 'a', token_type: 'bearer', expires_in: 7200, refresh_token: 'r', created_at: 1 };
const info = {
  resource_owner_id: 1,
  scope: ['api'],
  expires_in: 7200,
  application: { uid: 'u' },
  created_at: 1,
  scopes: ['api'],
  expires_in_seconds: 7200,
};

const result = (id: string, status: CheckResult['status'], rules: string[], broken?: string[]): CheckResult => ({
  id,
  suite: 'tokens',
  title: id,
  rules,
  status,
  durationMs: 1,
  ...(broken ? { broken } : {}),
});

const row = (d: Difference) => [d.operation, d.kind, d.subject, d.rules.join(','), d.allowed ?? ''];

describe('per assertion, not per check', () => {
  it('links a difference only to the rule whose failed assertion concerned its exchange', () => {
    // One check, two rules: the token-info assertion held, the token response's failed.
    const target = createRecording();
    const reference = createRecording();
    target.add('c', exchange('GET', '/oauth/token/info', 200, json, { ...info, scopes: 'api' }));
    reference.add('c', exchange('GET', '/oauth/token/info', 200, json, info));
    target.judge('c', ['INFO-ALIAS-SCOPES'], true);
    target.add('c', exchange('POST', '/oauth/token', 200, json, tokens));
    reference.add('c', exchange('POST', '/oauth/token', 200, { ...json, 'cache-control': 'no-store' }, tokens));
    target.judge('c', ['TOK-NO-STORE'], false);
    const results = [result('c', 'failed', ['INFO-ALIAS-SCOPES', 'TOK-NO-STORE'], ['TOK-NO-STORE'])];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map(row)).toEqual([
      // Not TOK-NO-STORE's: its failed assertion was about the token response, not this one.
      ['GET /oauth/token/info', 'type', '$.scopes', '', ''],
      ['GET /oauth/token/info', 'member', '$.scopes[]', '', ''],
      ['POST /oauth/token', 'header', 'cache-control', 'TOK-NO-STORE', ''],
    ]);
  });

  it('links only on an operation spec/openapi.yaml lists the rule for, and the same difference elsewhere in the check', () => {
    const target = createRecording();
    const reference = createRecording();
    const cached = { ...json, 'cache-control': 'no-store' };
    for (const [path, body] of [
      ['/oauth/revoke', {}],
      ['/oauth/token', tokens],
      ['/oauth/token', tokens],
    ] as const) {
      target.add('c', exchange('POST', path, 200, json, body));
      reference.add('c', exchange('POST', path, 200, cached, body));
      // The second token response is judged by an assertion of its own, which holds.
      if (path === '/oauth/token') target.judge('c', ['TOK-NO-STORE'], target.byCheck.get('c')!.length < 3);
    }
    const results = [result('c', 'failed', ['TOK-NO-STORE'], ['TOK-NO-STORE'])];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map((d) => [...row(d), d.count])).toEqual([
      // The revocation's answer was in the failed assertion's reach, but TOK-NO-STORE is the token endpoint's.
      ['POST /oauth/revoke', 'header', 'cache-control', '', '', 1],
      ['POST /oauth/token', 'header', 'cache-control', 'TOK-NO-STORE', '', 2],
    ]);
  });

  it('links a failure to the differences of its exchange the spec does not allow, not to members it allows beside them', () => {
    // One answer, two differences: Cache-Control missing (TOK-NO-STORE's failure) and a member the
    // token response's schema allows. The member did not break the rule: it stays allowed.
    const target = createRecording();
    const reference = createRecording();
    target.add('c', exchange('POST', '/oauth/token', 200, json, { ...tokens, x_region: 'eu' }));
    reference.add('c', exchange('POST', '/oauth/token', 200, { ...json, 'cache-control': 'no-store' }, tokens));
    target.judge('c', ['TOK-NO-STORE'], false);
    // Where a member the schema allows is all that differs, it is what the failure is about: linked.
    const { refresh_token: _kept, ...noRefresh } = tokens;
    target.add('d', exchange('POST', '/oauth/token', 200, json, tokens));
    reference.add('d', exchange('POST', '/oauth/token', 200, json, noRefresh));
    target.judge('d', ['TOK-REFRESH-TOKEN-ABSENT'], false);
    const results = [
      result('c', 'failed', ['TOK-NO-STORE'], ['TOK-NO-STORE']),
      result('d', 'failed', ['TOK-REFRESH-TOKEN-ABSENT'], ['TOK-REFRESH-TOKEN-ABSENT']),
    ];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map(row)).toEqual([
      ['POST /oauth/token', 'member', '$.refresh_token', 'TOK-REFRESH-TOKEN-ABSENT', ''],
      ['POST /oauth/token', 'member', '$.x_region', '', 'spec/openapi.yaml'],
      ['POST /oauth/token', 'header', 'cache-control', 'TOK-NO-STORE', ''],
    ]);
  });

  it('leaves out what a check did after its failure, and tells allowed from not covered', () => {
    const target = createRecording();
    const reference = createRecording();
    // A member the schema does not list, added: allowed by the spec's document.
    target.add('ok', exchange('GET', '/oauth/token/info', 200, json, { ...info, x_note: 'n' }));
    reference.add('ok', exchange('GET', '/oauth/token/info', 200, json, info));
    target.judge('ok', ['INFO-RESPONSE-FIELDS'], true);
    // A status the assertion that judged it accepted: allowed by that rule.
    target.add('ok', exchange('POST', '/oauth/token', 401, json, { error: 'invalid_client', error_description: 'x' }));
    reference.add(
      'ok',
      exchange('POST', '/oauth/token', 400, json, { error: 'invalid_client', error_description: 'x' }),
    );
    target.judge('ok', ['AUTH-INVALID-CLIENT'], true);
    // Judged by no assertion: not covered by any rule.
    target.add('ok', exchange('GET', '/oauth/discovery/keys', 200, json, { keys: [] }));
    reference.add(
      'ok',
      exchange('GET', '/oauth/discovery/keys', 200, { ...json, 'cache-control': 'max-age=60' }, { keys: [] }),
    );
    // After the failure: the check's later requests differ because it failed.
    target.add('bad', exchange('POST', '/oauth/token', 200, json, tokens));
    reference.add(
      'bad',
      exchange('POST', '/oauth/token', 400, json, { error: 'invalid_grant', error_description: 'x' }),
    );
    target.judge('bad', ['GRANT-CODE-SINGLE-USE'], false);
    target.add('bad', exchange('POST', '/oauth/revoke', 200, json, {}));
    const results = [
      result('ok', 'passed', ['INFO-RESPONSE-FIELDS', 'AUTH-INVALID-CLIENT']),
      result('bad', 'failed', ['GRANT-CODE-SINGLE-USE'], ['GRANT-CODE-SINGLE-USE']),
    ];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map(row)).toEqual([
      ['GET /oauth/discovery/keys', 'header', 'cache-control', '', ''],
      ['GET /oauth/token/info', 'member', '$.x_note', '', 'spec/openapi.yaml'],
      ['POST /oauth/token', 'error', 'error', 'GRANT-CODE-SINGLE-USE', ''],
      ['POST /oauth/token', 'status', 'status', '', 'AUTH-INVALID-CLIENT'],
      ['POST /oauth/token', 'status', 'status', 'GRANT-CODE-SINGLE-USE', ''],
    ]);
  });
});

describe('a fault that breaks one of the rules of a check', () => {
  it(
    'links the token response to TOK-NO-STORE, not the revocation the same check saw',
    { timeout: 120_000 },
    async () => {
      // grants.token-response-headers proves TOK-NO-STORE, TOK-ERROR-NO-STORE and ENC-JSON-CONTENT-TYPE;
      // token-cacheable breaks the first, and drops no-store from the revocation's answer too, which
      // no rule covers.
      let report: Report | undefined;
      const out: string[] = [];
      await executeDiff(
        { runs: '1', seed: '20260', fault: ['token-cacheable'], check: 'grants.token-response-headers' },
        { out: (t) => void out.push(t), err: () => {}, onReport: (r) => (report = r) },
        {},
      );
      const check = report!.checks.find((c) => c.id === 'grants.token-response-headers')!;
      expect(check.rules).toEqual(['TOK-NO-STORE', 'TOK-ERROR-NO-STORE', 'ENC-JSON-CONTENT-TYPE']);
      expect(check.broken).toEqual(['TOK-NO-STORE']);
      const cacheControl = report!.diff!.differences.filter(
        (d) => d.subject === 'cache-control' && ['POST /oauth/revoke', 'POST /oauth/token'].includes(d.operation),
      );
      expect(
        cacheControl.map((d) => [d.operation, d.rules.join(',')]),
        out.join(''),
      ).toEqual([
        ['POST /oauth/revoke', ''],
        ['POST /oauth/token', 'TOK-NO-STORE'],
      ]);
      expect(out.join('')).toMatch(/POST \/oauth\/revoke\n {2}header cache-control .*not covered by any rule/);
    },
  );
});

/** A real `diff` of one check against the embedded simulator with `faults`: its differences. */
async function diffOf(check: string, faults: string[]): Promise<{ differences: Difference[]; out: string }> {
  let report: Report | undefined;
  const out: string[] = [];
  await executeDiff(
    { runs: '1', seed: '20261127', fault: faults, check },
    { out: (t) => void out.push(t), err: () => {}, onReport: (r) => (report = r) },
    {},
  );
  return { differences: report!.diff!.differences, out: out.join('') };
}

describe('a failure blames the differences of the answer it judged (review 21 item 6)', () => {
  it(
    'an earlier answer of the same operation is not blamed on a failure about a later one',
    { timeout: 120_000 },
    async () => {
      // grants.code-single-use exchanges a code (200), then again: code-reusable answers the reuse
      // 200 where the reference refuses it, which breaks GRANT-CODE-SINGLE-USE. token-type-case
      // also makes the first answer's token_type `Bearer`: a difference the check never judged.
      const { differences, out } = await diffOf('grants.code-single-use', ['code-reusable', 'token-type-case']);
      const token = differences.filter((d) => d.operation === 'POST /oauth/token');
      expect(token.map((d) => [d.kind, d.subject, d.rules.join(',')]).sort(), out).toEqual([
        ['error', 'error', 'GRANT-CODE-SINGLE-USE'],
        ['status', 'status', 'GRANT-CODE-SINGLE-USE'],
        ['type', '$.token_type', ''],
      ]);
      // Not judged by the one check run: rules of the checks left out would have.
      const tokenType = token.find((d) => d.subject === '$.token_type')!;
      expect(tokenType.unjudged?.length, out).toBeGreaterThan(0);
    },
  );

  it(
    'two rules failed on one answer: each difference is blamed on the rule that names it',
    { timeout: 120_000 },
    async () => {
      const { differences, out } = await diffOf('tokens.info-deprecated-aliases', ['token-info-no-aliases']);
      // One row for the missing array: its items (`$.scopes[]`) are missing because it is (review 23).
      expect(differences.map((d) => [d.subject, d.rules.join(',')]).sort(), out).toEqual([
        ['$.expires_in_seconds', 'INFO-ALIAS-EXPIRES-IN-SECONDS'],
        ['$.scopes', 'INFO-ALIAS-SCOPES'],
      ]);
    },
  );
});

describe('allowed is said only by a rule that names the difference, or the schema', () => {
  it(
    'a token answer without Cache-Control, its rule left out of the selection, is not judged, not allowed (review 23)',
    { timeout: 120_000 },
    async () => {
      // token-cacheable drops Cache-Control from the token answer (TOK-NO-STORE, a must); the one
      // check run reads the token answer's body only, so its rules held without naming the header.
      const { differences, out } = await diffOf('tokens.info-presentations', ['token-cacheable']);
      const token = differences.find((d) => d.operation === 'POST /oauth/token' && d.subject === 'cache-control')!;
      expect(token, out).toBeDefined();
      expect(token.allowed, out).toBeUndefined();
      expect(token.unjudged, out).toContain('TOK-NO-STORE');
      expect(out).toMatch(/header cache-control .*not judged by the checks run \(TOK-NO-STORE/);
    },
  );
});

describe('an answer that differs as a whole', () => {
  it('blames its error code, not the headers beside it the rule does not name', { timeout: 120_000 }, async () => {
    // no-slow-down answers a too-fast poll authorization_pending where the reference says
    // slow_down (DEV-SLOW-DOWN); token-error-cacheable also drops Cache-Control and Pragma from
    // that answer, which DEV-SLOW-DOWN's sentence does not name.
    const { differences, out } = await diffOf('device.slow-down', ['no-slow-down', 'token-error-cacheable']);
    const token = differences.filter((d) => d.operation === 'POST /oauth/token');
    expect(token.map((d) => [d.kind, d.subject, d.rules.join(',')]).sort(), out).toEqual([
      ['error', 'error', 'DEV-SLOW-DOWN'],
      ['header', 'cache-control', ''],
      ['header', 'pragma', ''],
    ]);
  });
});

describe('a rule that names what the answer carries alike', () => {
  it('blames the value inside it, not the differences beside it', () => {
    // Content-Type `application/json; charset=utf-8` breaks ENC-JSON-CONTENT-TYPE by its charset,
    // which a shape does not show (both sides read `application/json`); the Vary the target adds
    // beside it is no part of that failure, in the answer judged nor in the one before it.
    const target = createRecording();
    const reference = createRecording();
    const charset = { 'content-type': 'application/json; charset=utf-8', vary: 'Origin' };
    for (let i = 0; i < 2; i++) {
      target.add('c', exchange('POST', '/oauth/token', 200, charset, tokens));
      reference.add('c', exchange('POST', '/oauth/token', 200, json, tokens));
    }
    target.judge('c', ['ENC-JSON-CONTENT-TYPE'], false);
    const results = [result('c', 'warned', ['ENC-JSON-CONTENT-TYPE'], ['ENC-JSON-CONTENT-TYPE'])];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map((d) => [...row(d), d.count])).toEqual([
      ['POST /oauth/token', 'value', '(a value inside the answer)', 'ENC-JSON-CONTENT-TYPE', '', 1],
      ['POST /oauth/token', 'header', 'vary', '', '', 2],
    ]);
  });
});

describe('an allowed row names the rules that judged that very difference', () => {
  it('names those of the pair that showed it, a few, and how many more; never a union across pairs', () => {
    const target = createRecording();
    const reference = createRecording();
    const extra = { ...info, x_note: 'n' };
    // Two checks see the same difference (a header the reference sends, not the target); each judged
    // its pair and held. The first's assertions name six rules, the second's one.
    target.add('a', exchange('GET', '/oauth/token/info', 401, json, { error: 'invalid_token' }));
    reference.add(
      'a',
      exchange('GET', '/oauth/token/info', 401, { ...json, 'cache-control': 'no-store' }, { error: 'invalid_token' }),
    );
    target.judge('a', ['INFO-INVALID-TOKEN', 'ERR-OAUTH-BODY', 'ERR-DESCRIPTION-CHARSET'], true);
    target.judge('a', ['ENC-RESPONSE-JSON', 'ENC-JSON-CONTENT-TYPE', 'AUTH-INVALID-TOKEN-401'], true);
    target.add('b', exchange('GET', '/oauth/token/info', 401, json, { error: 'invalid_token' }));
    reference.add(
      'b',
      exchange('GET', '/oauth/token/info', 401, { ...json, 'cache-control': 'no-store' }, { error: 'invalid_token' }),
    );
    target.judge('b', ['REV-REVOKES-TOKEN'], true);
    // One of the rules that judged it names the header that differs: that one is why it is allowed.
    target.add('c', exchange('POST', '/oauth/token', 400, json, { error: 'invalid_grant' }));
    reference.add(
      'c',
      exchange('POST', '/oauth/token', 400, { ...json, 'cache-control': 'no-store' }, { error: 'invalid_grant' }),
    );
    target.judge('c', ['ERR-OAUTH-BODY', 'TOK-ERROR-NO-STORE', 'ENC-RESPONSE-JSON'], true);
    target.add('c', exchange('GET', '/oauth/token/info', 200, json, extra));
    reference.add('c', exchange('GET', '/oauth/token/info', 200, json, info));
    const results = ['a', 'b', 'c'].map((id) => result(id, 'passed', []));
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map(row)).toEqual([
      ['GET /oauth/token/info', 'member', '$.x_note', '', 'spec/openapi.yaml'],
      [
        'GET /oauth/token/info',
        'header',
        'cache-control',
        '',
        'INFO-INVALID-TOKEN, ERR-OAUTH-BODY, ERR-DESCRIPTION-CHARSET and 3 more',
      ],
      ['POST /oauth/token', 'header', 'cache-control', '', 'TOK-ERROR-NO-STORE'],
    ]);
  });
});

describe('review 30: a closed list of members, and rows of answers judged apart', () => {
  const vendor = { x_vendor_extra: 'hello' };

  it('links a member added to a body a rule lists every member of to that rule, and no "alike in shape" row', () => {
    // A front adds x_vendor_extra to the password grant's answer; TOK-PASSWORD-RESPONSE-FIELDS
    // ("returns only access_token, token_type and expires_in") fails on it. The sentence names
    // access_token, which the answer carries alike: the member it does not name is what breaks it.
    const password = { access_token: 'a', token_type: 'bearer', expires_in: 7200 };
    const target = createRecording();
    const reference = createRecording();
    target.add('p', exchange('POST', '/oauth/token', 200, json, { ...vendor, ...password }));
    reference.add('p', exchange('POST', '/oauth/token', 200, json, password));
    target.judge('p', ['TOK-PASSWORD-RESPONSE-FIELDS'], false);
    const results = [
      result('p', 'failed', ['TOK-PASSWORD-RESPONSE-FIELDS', 'TOK-EXPIRES-IN'], ['TOK-PASSWORD-RESPONSE-FIELDS']),
    ];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map(row)).toEqual([
      ['POST /oauth/token', 'member', '$.x_vendor_extra', 'TOK-PASSWORD-RESPONSE-FIELDS', ''],
    ]);
  });

  it('allows a row only where every answer in it matches its schema', () => {
    // The set-up's revocations through the same front: a 400 error body may carry x_vendor_extra,
    // the 200 `{x_vendor_extra}` breaks RevokeResponse (maxProperties 0), whichever comes first.
    const refusal = { error: 'invalid_request', error_description: 'no token' };
    for (const order of [
      [400, 200],
      [200, 400],
    ]) {
      const target = createRecording();
      const reference = createRecording();
      for (const status of order) {
        const body = status === 200 ? {} : refusal;
        target.add(SETUP, exchange('POST', '/oauth/revoke', status, json, { ...vendor, ...body }));
        reference.add(SETUP, exchange('POST', '/oauth/revoke', status, json, body));
      }
      const results = [result('oidc.discovery', 'passed', ['OIDC-DISCOVERY'])];
      const leftOut = ['REV-EMPTY-OBJECT', 'REV-PARAMS'];
      const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref', leftOut });
      // Judged per status (review 30, a leftover): the 200 is REV-EMPTY-OBJECT's, whose check was left out; the
      // 400's member is one the error body may carry. Before, one row "not judged" hid the 400's.
      expect(differences.map((d) => [...row(d), d.unjudged?.join(','), d.status, d.count])).toEqual([
        ['POST /oauth/revoke', 'member', '$.x_vendor_extra', '', '', 'REV-EMPTY-OBJECT', '200', 1],
        ['POST /oauth/revoke', 'member', '$.x_vendor_extra', '', 'spec/openapi.yaml', undefined, '400', 1],
      ]);
    }
  });
});

describe('"not judged" by the rules spec/openapi.yaml lists for the answer\'s status', () => {
  it('leaves a refusal out of a rule left out that judges the token responses alone, and shows its row', () => {
    // A token response and a refusal both without the Pragma the reference sends; no check run judged
    // either. TOK-NO-STORE names Pragma, and spec/openapi.yaml ties it to the 200 (its Cache-Control
    // and Pragma headers): left out, it did not judge the 200; the 400 is no answer of its.
    const target = createRecording();
    const reference = createRecording();
    const refusal = { error: 'invalid_grant', error_description: 'no' };
    for (const [status, body] of [
      [200, tokens],
      [400, refusal],
    ] as const) {
      target.add('c', exchange('POST', '/oauth/token', status, { ...json, 'cache-control': 'no-store' }, body));
      reference.add(
        'c',
        exchange('POST', '/oauth/token', status, { ...json, 'cache-control': 'no-store', pragma: 'no-cache' }, body),
      );
    }
    const results = [result('c', 'passed', ['GRANT-CODE-PARAMS'])];
    const leftOut = ['TOK-NO-STORE', 'TOK-ERROR-NO-STORE', 'TOK-CREATED-AT'];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref', leftOut });
    expect(differences.map((d) => [d.operation, d.subject, d.unjudged?.join(','), d.status, d.count])).toEqual([
      ['POST /oauth/token', 'pragma', 'TOK-NO-STORE', '200', 1],
      ['POST /oauth/token', 'pragma', undefined, '400', 1],
    ]);
    // Every answer of one status judged alike: one row, as before, no status said.
    const only200 = createRecording();
    const ref200 = createRecording();
    for (let i = 0; i < 2; i++) {
      only200.add('c', exchange('POST', '/oauth/token', 200, json, tokens));
      ref200.add('c', exchange('POST', '/oauth/token', 200, { ...json, pragma: 'no-cache' }, tokens));
    }
    const one = diffRecordings({ target: only200, reference: ref200, results, referenceName: 'ref', leftOut });
    expect(one.differences.map((d) => [d.subject, d.unjudged?.join(','), d.status, d.count])).toEqual([
      ['pragma', 'TOK-NO-STORE', undefined, 2],
    ]);
  });
});

describe('linked per (operation, status): one cause, one blame (diffrows2 leftover)', () => {
  // A token response without Cache-Control breaks TOK-NO-STORE; a refusal without it breaks
  // TOK-ERROR-NO-STORE (spec/openapi.yaml ties each to its response's headers). The same missing
  // header on a refusal is not TOK-NO-STORE's, whichever check saw it.
  const refusal = { error: 'invalid_grant', error_description: 'no' };
  const cached = { ...json, 'cache-control': 'no-store' };
  const leftOut = ['TOK-ERROR-NO-STORE'];
  const columns = (d: Difference) => [...row(d), d.unjudged?.join(','), d.status, d.count];
  /** Token answers by check and status, recorded twice: the target's without Cache-Control, the reference's with it. */
  const recorded = (...answers: [check: string, status: number][]) => {
    const target = createRecording();
    const reference = createRecording();
    for (const [check, status] of answers) {
      const body = status === 200 ? tokens : refusal;
      target.add(check, exchange('POST', '/oauth/token', status, json, body));
      reference.add(check, exchange('POST', '/oauth/token', status, cached, body));
    }
    return { target, reference };
  };

  it('a failure at the 200 does not link the same difference of a 400 in its reach, sent before or after', () => {
    for (const order of [
      [400, 200],
      [200, 400],
    ]) {
      const { target, reference } = recorded(...order.map((status): [string, number] => ['c', status]));
      target.judge('c', ['TOK-NO-STORE'], false);
      const results = [result('c', 'failed', ['TOK-NO-STORE'], ['TOK-NO-STORE'])];
      const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref', leftOut });
      expect(differences.map(columns), order.join()).toEqual([
        ['POST /oauth/token', 'header', 'cache-control', 'TOK-NO-STORE', '', undefined, '200', 1],
        ['POST /oauth/token', 'header', 'cache-control', '', '', 'TOK-ERROR-NO-STORE', '400', 1],
      ]);
    }
  });

  it('nor the same difference of a 400 another check saw', () => {
    const { target, reference } = recorded(['a', 200], ['b', 400]);
    target.judge('a', ['TOK-NO-STORE'], false);
    const results = [
      result('a', 'failed', ['TOK-NO-STORE'], ['TOK-NO-STORE']),
      result('b', 'passed', ['GRANT-CODE-UNKNOWN']),
    ];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref', leftOut });
    expect(differences.map(columns)).toEqual([
      ['POST /oauth/token', 'header', 'cache-control', 'TOK-NO-STORE', '', undefined, '200', 1],
      ['POST /oauth/token', 'header', 'cache-control', '', '', 'TOK-ERROR-NO-STORE', '400', 1],
    ]);
  });

  it('each status to its own rule where both failed, a row each', () => {
    const { target, reference } = recorded(['a', 200], ['b', 400]);
    target.judge('a', ['TOK-NO-STORE'], false);
    target.judge('b', ['TOK-ERROR-NO-STORE'], false);
    const results = [
      result('a', 'failed', ['TOK-NO-STORE'], ['TOK-NO-STORE']),
      result('b', 'failed', ['TOK-ERROR-NO-STORE'], ['TOK-ERROR-NO-STORE']),
    ];
    const { differences } = diffRecordings({ target, reference, results, referenceName: 'ref' });
    expect(differences.map(columns)).toEqual([
      ['POST /oauth/token', 'header', 'cache-control', 'TOK-NO-STORE', '', undefined, '200', 1],
      ['POST /oauth/token', 'header', 'cache-control', 'TOK-ERROR-NO-STORE', '', undefined, '400', 1],
    ]);
  });
  it(
    'a real run: the token responses and the refusals without Cache-Control, each its own rule',
    { timeout: 120_000 },
    async () => {
      // grants.token-response-headers judges a token response (TOK-NO-STORE) and a refusal
      // (TOK-ERROR-NO-STORE); the two faults drop Cache-Control and Pragma from both. Before, one
      // row per header named both rules, the refusal's Pragma blamed on TOK-NO-STORE.
      const { differences, out } = await diffOf('grants.token-response-headers', [
        'token-cacheable',
        'token-error-cacheable',
      ]);
      const token = differences.filter((d) => d.operation === 'POST /oauth/token');
      expect(
        token.map((d) => [d.subject, d.status, d.rules.join(',')]),
        out,
      ).toEqual([
        ['cache-control', '200', 'TOK-NO-STORE'],
        ['cache-control', '400', 'TOK-ERROR-NO-STORE'],
        ['pragma', '200', 'TOK-NO-STORE'],
        ['pragma', '400', ''],
      ]);
      expect(token.find((d) => d.subject === 'pragma' && d.status === '400')?.unjudged, out).toBeUndefined();
    },
  );
});
