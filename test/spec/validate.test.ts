/**
 * validateSpec: the real spec is clean, and a broken copy of each file is rejected with a precise
 * message at the right line. Broken copies live in memory (validateSpec's `files` option).
 */
import { describe, expect, it } from 'vitest';
import { validateSpec, type Problem } from '../../spec/index.js';
import { edit, expectOnly, lineOf, problemsWith, specText } from './helpers.js';

const DEVICE = 'machines/device-authorization.yaml';
const CODE = 'machines/authorization-code.yaml';
/** GRANT-CODE-CLIENT-BOUND's level, source and origin: a must of RFC origin (its origin line is not unique). */
const CLIENT_BOUND_ORIGIN =
  'the code was issued to the authenticated client). Which code names the refusal is ERR-INVALID-GRANT\'s, its status ERR-TOKEN-STATUS\'s."\n    level: must\n    source: "RFC 6749 §4.1.3 (not shown)"\n    origin: "RFC 6749 §4.1.3"';

function expectIncludes(problems: Problem[], expected: { file: string; line: number; message: string | RegExp }): void {
  const hit = problems.find(
    (p) =>
      p.file === expected.file &&
      p.line === expected.line &&
      (typeof expected.message === 'string' ? p.message === expected.message : expected.message.test(p.message)),
  );
  expect(hit, `expected ${JSON.stringify(expected)} among ${JSON.stringify(problems, null, 1)}`).toBeDefined();
}

describe('the real spec', () => {
  it('has no problems', () => {
    expect(validateSpec()).toEqual([]);
  });
});

describe('rules.yaml', () => {
  it('rejects a duplicate rule id and names the first occurrence', () => {
    const files = edit('rules.yaml', '- id: PKCE-METHOD-S256\n', '- id: PKCE-CHALLENGE-S256\n');
    const text = files['rules.yaml'];
    const first = lineOf(text, 'id: PKCE-CHALLENGE-S256');
    const second =
      lineOf(text.slice(text.indexOf('id: PKCE-CHALLENGE-S256') + 5), 'id: PKCE-CHALLENGE-S256') + first - 1;
    const problems = problemsWith(files);
    expectIncludes(problems, {
      file: 'rules.yaml',
      line: second,
      message: `duplicate rule id PKCE-CHALLENGE-S256 (first at line ${first})`,
    });
    // The vanished id is now an unknown reference wherever it was named.
    expectIncludes(problems, {
      file: 'openapi.yaml',
      line: lineOf(specText('openapi.yaml'), 'PKCE-METHOD-S256'),
      message: /unknown rule id PKCE-METHOD-S256/,
    });
  });

  it('rejects a schema violation (bad level) at its line', () => {
    const files = edit(
      'rules.yaml',
      "title: The service is an OAuth 2.0 identity provider\n    statement: Third-party applications obtain access tokens from the service that act for a user on the service's resources.\n    level: info",
      "title: The service is an OAuth 2.0 identity provider\n    statement: Third-party applications obtain access tokens from the service that act for a user on the service's resources.\n    level: maybe",
    );
    expectOnly(problemsWith(files), {
      file: 'rules.yaml',
      line: lineOf(files['rules.yaml'], 'level: maybe'),
      message: 'schema: rules.0.level must be one of must, should, info',
    });
  });

  it('rejects a malformed rule id', () => {
    const files = edit('rules.yaml', '- id: GRANT-IDENTITY-PROVIDER\n', '- id: grant-identity-provider\n');
    const problems = problemsWith(files);
    expectIncludes(problems, {
      file: 'rules.yaml',
      line: lineOf(files['rules.yaml'], 'grant-identity-provider'),
      message: /^schema: rules\.0\.id must match pattern/,
    });
  });

  it('rejects a release that profiles.yaml does not list, and an unknown flag', () => {
    const files = edit(
      'rules.yaml',
      '    source: "Endpoints > CORS"\n    origin: source\n    since: "15.1"\n  - id: CORS-ALLOWED-HEADERS-LIMITED',
      '    source: "Endpoints > CORS"\n    origin: source\n    since: "15.2"\n    flag: no_such_flag\n  - id: CORS-ALLOWED-HEADERS-LIMITED',
    );
    const problems = problemsWith(files);
    expectIncludes(problems, {
      file: 'rules.yaml',
      line: lineOf(files['rules.yaml'], 'since: "15.2"'),
      message: 'rule CORS-PREFLIGHT since: release 15.2 is not listed in profiles.yaml releases',
    });
    expectIncludes(problems, {
      file: 'rules.yaml',
      line: lineOf(files['rules.yaml'], 'flag: no_such_flag'),
      message: 'rule CORS-PREFLIGHT: unknown flag no_such_flag',
    });
    expect(problems).toHaveLength(2);
  });

  it('rejects a source that names no section of the source document', () => {
    const files = edit(
      'rules.yaml',
      'source: "Endpoints > POST /oauth/revoke"\n',
      'source: "Endpoints > POST /oauth/revokes"\n',
    );
    expectOnly(problemsWith(files), {
      file: 'rules.yaml',
      line: lineOf(files['rules.yaml'], 'POST /oauth/revokes'),
      message:
        'rule REV-PARAMS: source "Endpoints > POST /oauth/revokes" names no section of source-spec.md (nor an RFC "(not shown)")',
    });
  });

  it('requires a must rule of RFC origin to cite its section', () => {
    const files = edit('rules.yaml', CLIENT_BOUND_ORIGIN, CLIENT_BOUND_ORIGIN.replace(' §4.1.3"', '"'));
    expectOnly(problemsWith(files), {
      file: 'rules.yaml',
      line: lineOf(files['rules.yaml'], '    origin: "RFC 6749"\n'),
      message:
        'rule GRANT-CODE-CLIENT-BOUND: level must of RFC origin "RFC 6749": cite the section (e.g. "RFC 6749 §4.1.2")',
    });
  });

  it('requires every rule to have an origin', () => {
    const files = edit(
      'rules.yaml',
      `${CLIENT_BOUND_ORIGIN}\n`,
      CLIENT_BOUND_ORIGIN.replace(/\n {4}origin: .*$/, '\n'),
    );
    const problems = problemsWith(files);
    expect(problems.map((p) => p.message).join('\n')).toMatch(/origin/);
  });

  it('keeps documented behaviour at should, and origin in agreement with source', () => {
    const documented = edit(
      'rules.yaml',
      '    level: should\n    source: "Documented public behaviour (not shown)"\n    origin: documented\n\n  # ---------------------------------------------------------------- PKCE',
      '    level: must\n    source: "Documented public behaviour (not shown)"\n    origin: documented\n\n  # ---------------------------------------------------------------- PKCE',
    );
    expectOnly(problemsWith(documented), {
      file: 'rules.yaml',
      line: lineOf(documented['rules.yaml'], '    level: must\n    source: "Documented public behaviour'),
      message: 'rule GRANT-JSON-BODY: level must, but documented behaviour the source does not show is at most should',
    });
    const mismatch = edit(
      'rules.yaml',
      CLIENT_BOUND_ORIGIN,
      CLIENT_BOUND_ORIGIN.replace('origin: "RFC 6749 §4.1.3"', 'origin: source'),
    );
    expectOnly(problemsWith(mismatch), {
      file: 'rules.yaml',
      line: lineOf(mismatch['rules.yaml'], '    source: "RFC 6749 §4.1.3 (not shown)"\n    origin: source') + 1,
      message:
        'rule GRANT-CODE-CLIENT-BOUND: origin source, but its source "RFC 6749 §4.1.3 (not shown)" is not the source document',
    });
  });

  it('reports YAML syntax errors with their line', () => {
    const text = specText('rules.yaml') + '  - id: [unclosed\n';
    const problems = problemsWith({ 'rules.yaml': text });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0].file).toBe('rules.yaml');
    expect(problems[0].message).toMatch(/^YAML: /);
    expect(problems[0].line).toBeGreaterThan(text.split('\n').length - 4);
  });
});

describe('machines', () => {
  it('rejects an unknown rule id in a row', () => {
    const files = edit(DEVICE, 'rules: [DEV-SLOW-DOWN] }', 'rules: [DEV-SLOW-DOWNN] }');
    expectOnly(problemsWith(files), {
      file: DEVICE,
      line: lineOf(files[DEVICE], 'DEV-SLOW-DOWNN'),
      message: 'row 2 (pending, poll, too_fast): unknown rule id DEV-SLOW-DOWNN',
    });
  });

  it('rejects an unreachable state', () => {
    const files = edit(
      DEVICE,
      '{ state: pending, trigger: deny, condition: otherwise, next: denied,',
      '{ state: pending, trigger: deny, condition: otherwise, next: pending,',
    );
    expectOnly(problemsWith(files), {
      file: DEVICE,
      line: lineOf(files[DEVICE], '  denied: {'),
      message: 'state denied is unreachable from the initial state pending',
    });
  });

  it('rejects an ambiguous (state, trigger, condition)', () => {
    // Both exchange rows of `exchanged` now read client_auth_failed; the second duplicates the first.
    const files = edit(
      CODE,
      '{ state: exchanged, trigger: exchange, condition: otherwise, next: reused,',
      '{ state: exchanged, trigger: exchange, condition: client_auth_failed, next: reused,',
    );
    const problems = problemsWith(files);
    const line = lineOf(files[CODE], 'condition: client_auth_failed, next: reused');
    expectIncludes(problems, {
      file: CODE,
      line,
      message:
        'row 10 (exchanged, exchange, client_auth_failed): ambiguous, row 9 has the same state, trigger and condition',
    });
    expectIncludes(problems, {
      file: CODE,
      line,
      message: '(exchanged, exchange) has no otherwise row: the table is not total',
    });
  });

  it('rejects a row after the otherwise row of its (state, trigger)', () => {
    const text = specText(CODE);
    const otherwise = text
      .split('\n')
      .find((l) => l.includes('state: exchanged, trigger: exchange, condition: otherwise'))!;
    const auth = text
      .split('\n')
      .find((l) => l.includes('state: exchanged, trigger: exchange, condition: client_auth_failed'))!;
    const swapped = text.replace(`${auth}\n${otherwise}`, `${otherwise}\n${auth}`);
    expect(swapped).not.toBe(text);
    expectOnly(problemsWith({ [CODE]: swapped }), {
      file: CODE,
      line: lineOf(swapped, auth.trim()),
      message:
        'row 10 (exchanged, exchange, client_auth_failed): comes after the otherwise row 9 of (exchanged, exchange), so it is never taken',
    });
  });

  it('rejects unknown conditions, effects and schemas', () => {
    let files = edit(
      DEVICE,
      'condition: too_fast, next: pending, result: { status: 400, error: slow_down }, effects: [grow_interval, record_poll]',
      'condition: too_quick, next: pending, result: { status: 400, error: slow_down }, effects: [grow_interval, record_poll]',
    );
    let problems = problemsWith(files);
    expectIncludes(problems, {
      file: DEVICE,
      line: lineOf(files[DEVICE], 'too_quick'),
      message: 'row 2 (pending, poll, too_quick): unknown condition too_quick',
    });
    expectIncludes(problems, {
      file: DEVICE,
      line: lineOf(files[DEVICE], '  too_fast:'),
      message: 'condition too_fast is declared but no row uses it',
    });

    files = edit(DEVICE, 'effects: [grow_interval, record_poll]', 'effects: [grow_interval, record_pol]');
    expectOnly(problemsWith(files), {
      file: DEVICE,
      line: lineOf(files[DEVICE], 'record_pol]'),
      message: 'row 2 (pending, poll, too_fast): unknown effect record_pol',
    });

    files = edit(DEVICE, 'body: DeviceTokenResponse', 'body: DeviceTokenAnswer');
    problems = problemsWith(files);
    expectOnly(problems, {
      file: DEVICE,
      line: lineOf(files[DEVICE], 'DeviceTokenAnswer'),
      message:
        'row 7 (authorized, poll, otherwise): unknown schema DeviceTokenAnswer (not in openapi.yaml components.schemas)',
    });
  });

  it('rejects a terminal state that leads elsewhere', () => {
    const files = edit(
      CODE,
      '{ state: reused, trigger: exchange, condition: otherwise, next: reused,',
      '{ state: reused, trigger: exchange, condition: otherwise, next: issued,',
    );
    expectOnly(problemsWith(files), {
      file: CODE,
      line: lineOf(
        files[CODE],
        'next: issued, result: { status: 400, error: invalid_grant }, effects: [], source: "RFC 6749 §4.1.2 (not shown)", rules: [GRANT-CODE-SINGLE-USE] }',
      ),
      message: 'row 12 (reused, exchange, otherwise): terminal state reused must not lead to issued',
    });
  });

  it('rejects a schema violation in a row', () => {
    const files = edit(
      DEVICE,
      'result: { status: 400, error: slow_down }',
      'result: { status: "four hundred", error: slow_down }',
    );
    expectOnly(problemsWith(files), {
      file: DEVICE,
      line: lineOf(files[DEVICE], 'four hundred'),
      message: 'schema: rows.1.result.status must be integer',
    });
  });
});

describe('openapi.yaml', () => {
  it('rejects an unknown rule id in x-rules', () => {
    const files = edit(
      'openapi.yaml',
      'x-rules: [OIDC-DISCOVERY]\n      security: [{}]',
      'x-rules: [OIDC-DISCOVERYY]\n      security: [{}]',
    );
    expectOnly(problemsWith(files), {
      file: 'openapi.yaml',
      line: lineOf(files['openapi.yaml'], 'OIDC-DISCOVERYY'),
      message: 'x-rules: unknown rule id OIDC-DISCOVERYY',
    });
  });

  it('rejects a duplicate operationId', () => {
    const files = edit('openapi.yaml', 'operationId: oauthUserinfoPost', 'operationId: oauthUserinfo');
    const line = lineOf(
      files['openapi.yaml'],
      'operationId: oauthUserinfo\n      tags: [oidc]\n      summary: OpenID Connect user information (POST form)',
    );
    expectOnly(problemsWith(files), {
      file: 'openapi.yaml',
      line,
      message: 'POST /oauth/userinfo: operationId oauthUserinfo is also used by GET /oauth/userinfo',
    });
  });

  it('rejects a $ref that does not resolve', () => {
    const files = edit(
      'openapi.yaml',
      'schema: { $ref: "#/components/schemas/TokenInfo" }',
      'schema: { $ref: "#/components/schemas/TokenInformation" }',
    );
    expectOnly(problemsWith(files), {
      file: 'openapi.yaml',
      line: lineOf(files['openapi.yaml'], 'TokenInformation'),
      message: '$ref #/components/schemas/TokenInformation does not resolve',
    });
  });

  it('rejects a path parameter that is not declared', () => {
    const files = edit(
      'openapi.yaml',
      '"/api/v4/member_roles/{id}":\n    parameters:\n      - { name: id, in: path, required: true, schema: { type: string } }\n',
      '"/api/v4/member_roles/{id}":\n',
    );
    expectOnly(problemsWith(files), {
      file: 'openapi.yaml',
      line: lineOf(files['openapi.yaml'], 'operationId: deleteMemberRole') - 1,
      message: 'DELETE /api/v4/member_roles/{id}: path parameter {id} is not declared',
    });
  });

  it('rejects a paginated operation without the pagination headers', () => {
    const text = specText('openapi.yaml');
    const start = text.indexOf('operationId: listGroups\n');
    const header = '            x-total-pages: { $ref: "#/components/headers/XTotalPages" }\n';
    const at = text.indexOf(header, start);
    expect(at).toBeGreaterThan(start);
    const broken = text.slice(0, at) + text.slice(at + header.length);
    const line = lineOf(broken.slice(start), '      responses:') + lineOf(broken, 'operationId: listGroups\n') - 1;
    expectOnly(problemsWith({ 'openapi.yaml': broken }), {
      file: 'openapi.yaml',
      line,
      message: 'GET /api/v4/groups: paginated, but its 200 response lacks the headers x-total-pages',
    });
  });

  it('rejects an unknown flag and an unknown release window', () => {
    const files = edit(
      'openapi.yaml',
      '      x-since: "17.1"\n      x-flag: "device_authorization_grant"\n      summary: Start the device flow',
      '      x-since: "17.2"\n      x-flag: "device_grant"\n      summary: Start the device flow',
    );
    const problems = problemsWith(files);
    expect(problems).toHaveLength(2);
    expectIncludes(problems, {
      file: 'openapi.yaml',
      line: lineOf(files['openapi.yaml'], 'x-since: "17.2"'),
      message: 'x-since: release 17.2 is not listed in profiles.yaml releases',
    });
    expectIncludes(problems, {
      file: 'openapi.yaml',
      line: lineOf(files['openapi.yaml'], 'x-flag: "device_grant"'),
      message: 'x-flag: unknown flag device_grant',
    });
  });
});

describe('faults.yaml', () => {
  const base = '# test faults\nfaults:\n';
  it('rejects an unknown rule id', () => {
    const text = `${base}  - { name: loose-state, side: oauth, rules: [GRANT-STATE-ECHOO], description: "state comes back altered" }\n`;
    expectOnly(problemsWith({ 'faults.yaml': text }), {
      file: 'faults.yaml',
      line: 3,
      message: 'fault loose-state: unknown rule id GRANT-STATE-ECHOO',
    });
  });
  it('rejects a duplicate fault name', () => {
    const text = `${base}  - { name: loose-state, side: oauth, rules: [GRANT-STATE-ECHO], description: "state comes back altered" }\n  - { name: loose-state, side: oauth, rules: [GRANT-STATE-ECHO], description: "state comes back altered" }\n`;
    expectOnly(problemsWith({ 'faults.yaml': text }), {
      file: 'faults.yaml',
      line: 4,
      message: 'duplicate fault loose-state (first at line 3)',
    });
  });
  it('rejects a schema violation', () => {
    const text = `${base}  - { name: loose-state, side: web, rules: [GRANT-STATE-ECHO], description: "state comes back altered" }\n`;
    expectOnly(problemsWith({ 'faults.yaml': text }), {
      file: 'faults.yaml',
      line: 3,
      message: 'schema: faults.0.side must be one of oauth, api',
    });
  });
});

describe('profiles.yaml', () => {
  it('rejects a default release that is not listed', () => {
    const files = edit('profiles.yaml', 'defaults:\n  release: "18.0"', 'defaults:\n  release: "18.1"');
    expectOnly(problemsWith(files), {
      file: 'profiles.yaml',
      line: lineOf(files['profiles.yaml'], 'release: "18.1"'),
      message: 'default release 18.1 is not listed in releases',
    });
  });
  it('rejects an offering that fixes an unknown setting', () => {
    const files = edit(
      'profiles.yaml',
      '      passwordGrantClientCredentialsOnly: true',
      '      passwordGrantClientCredentialOnly: true',
    );
    expectOnly(problemsWith(files), {
      file: 'profiles.yaml',
      line: lineOf(files['profiles.yaml'], 'passwordGrantClientCredentialOnly'),
      message: 'offering hosted: unknown setting passwordGrantClientCredentialOnly',
    });
  });
  it('rejects releases out of order', () => {
    const files = edit('profiles.yaml', '  "16.7":\n', '  "16.4":\n');
    const problems = problemsWith(files);
    expectIncludes(problems, {
      file: 'profiles.yaml',
      line: lineOf(files['profiles.yaml'], '"16.4":'),
      message: 'release 16.4 is listed after 16.5: keep releases in ascending order',
    });
    // 16.7 is gone, so what starts at 16.7 names an unknown release.
    expectIncludes(problems, {
      file: 'rules.yaml',
      line: lineOf(specText('rules.yaml'), 'since: "16.7"'),
      message: 'rule ENC-MOVED-REDIRECT since: release 16.7 is not listed in profiles.yaml releases',
    });
  });
  it('rejects a schema violation and a limit without source', () => {
    let files = edit(
      'profiles.yaml',
      'device_authorization_grant:\n    default: true',
      'device_authorization_grant:\n    default: "yes"',
    );
    expectOnly(problemsWith(files), {
      file: 'profiles.yaml',
      line: lineOf(files['profiles.yaml'], 'default: "yes"'),
      message: 'schema: flags.device_authorization_grant.default must be boolean',
    });
    files = edit(
      'profiles.yaml',
      '  usersKeysetEnforcedAbove: { source: "Limits", rules: [PAG-USERS-KEYSET-ENFORCED] }\n',
      '',
    );
    expectOnly(problemsWith(files), {
      file: 'profiles.yaml',
      line: lineOf(files['profiles.yaml'], '  usersKeysetEnforcedAbove: 50000'),
      message: 'limit usersKeysetEnforcedAbove has no limitSources entry',
    });
  });
});

describe('source-map.yaml', () => {
  it('rejects an entry that matches no row', () => {
    const files = edit('source-map.yaml', 'row: "Device code lifetime"', 'row: "Device code life span"');
    const problems = problemsWith(files);
    expect(problems).toHaveLength(2);
    expectIncludes(problems, {
      file: 'source-map.yaml',
      line: lineOf(files['source-map.yaml'], 'Device code life span'),
      message: /^entry \d+ \(Limits: Device code life span\) matches no row of source-spec.md$/,
    });
    expectIncludes(problems, {
      file: 'source-spec.md',
      line: lineOf(specText('source-spec.md'), '| Device code lifetime |'),
      message: /^table row under "Limits" has no entry in source-map.yaml: Device code lifetime/,
    });
  });
  it('rejects an entry that matches several rows', () => {
    const files = edit('source-map.yaml', 'row: "Project jobs |"', 'row: "Project"');
    const problems = problemsWith(files);
    expectIncludes(problems, {
      file: 'source-map.yaml',
      line: lineOf(files['source-map.yaml'], 'row: "Project"'),
      message:
        /^entry \d+ \(Endpoints > Pagination: Project\) matches 3 items \(lines \d+, \d+, \d+\): make it unique$/,
    });
  });
  it('catches a row added to the source text that the map lacks', () => {
    const files = edit(
      'source-spec.md',
      '| Device polling interval |',
      '| Device user code length | 8 characters | device flow |\n| Device polling interval |',
    );
    expectOnly(problemsWith(files), {
      file: 'source-spec.md',
      line: lineOf(files['source-spec.md'], 'Device user code length'),
      message:
        'table row under "Limits" has no entry in source-map.yaml: Device user code length | 8 characters | device flow',
    });
  });
  it('rejects an unknown rule id', () => {
    const files = edit(
      'source-map.yaml',
      'rules: [PAG-HOSTED-HEADERS-OMITTED] }',
      'rules: [PAG-HOSTED-HEADERS-OMITED] }',
    );
    expectOnly(problemsWith(files), {
      file: 'source-map.yaml',
      line: lineOf(files['source-map.yaml'], 'OMITED'),
      message: /^entry \d+: unknown rule id PAG-HOSTED-HEADERS-OMITED$/,
    });
  });
});
