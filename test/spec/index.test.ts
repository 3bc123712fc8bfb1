/**
 * spec/index.ts beyond the accessors' happy paths: the exact shape each accessor returns for
 * chosen operations, every "unknown" message, the one error an invalid spec raises (singular,
 * plural, cut after 20 problems), and the parsed-spec cache (written, read back, keyed by the
 * files' text, a damaged one ignored). Broken copies of the spec come in through a mocked
 * readSpecFiles and a fresh module instance, never through the files on disk.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as spec from '../../spec/index.js';
import { readSpecFiles, type SpecFiles } from '../../spec/files.js';
import { validateFiles } from '../../spec/validate.js';
import type { OperationId, RuleId } from '../../spec/ids.js';

const ids = (list: { id: string }[]) => list.map((r) => r.id);

describe('operations and the tables read from openapi.yaml', () => {
  const op = (id: OperationId) => {
    const { raw, ...rest } = spec.operation(id);
    expect(raw).toBeTypeOf('object');
    return rest;
  };

  it('reads each field of an operation, with the defaults of the absent ones', () => {
    expect(op('oauthAuthorizeDevice')).toEqual({
      operationId: 'oauthAuthorizeDevice',
      method: 'post',
      path: '/oauth/authorize_device',
      tags: ['oauth'],
      greedy: undefined,
      since: '17.1',
      until: undefined,
      flag: 'device_authorization_grant',
      rules: expect.arrayContaining(['DEV-AUTHORIZE-PARAMS']),
      deprecated: false,
    });
    expect(op('legacyJwks')).toMatchObject({ method: 'get', path: '/-/jwks', until: '17.0', since: undefined });
    expect(op('registerRunner')).toMatchObject({ deprecated: true, method: 'post' });
    expect(op('gitInfoRefs')).toMatchObject({ greedy: 'namespace', path: '/{namespace}/{project}.git/info/refs' });
    expect(op('simConfig')).toMatchObject({ rules: [] });
    expect(spec.operations().length).toBeGreaterThan(50);
    expect(new Set(spec.operations().map((o) => o.method))).toEqual(new Set(['get', 'post', 'delete']));
  });

  it('names an unknown operationId and schema', () => {
    expect(() => spec.operation('nope' as OperationId)).toThrow(new Error('unknown operationId nope'));
    expect(() => spec.schema('Nope')).toThrow(
      new Error('unknown schema Nope (not in spec/openapi.yaml components.schemas)'),
    );
    expect(spec.schema('DeviceTokenResponse').type).toBe('object');
  });

  it('expands the keyset table: every order_by with every sort, or one pair of nulls', () => {
    const table = spec.keysetTable();
    expect(table.map((r) => r.operationId)).toEqual([
      'listUsers',
      'listProjects',
      'listRepositoryTree',
      'listProjectJobs',
      'listProjectAuditEvents',
      'listPackagePipelines',
      'listRegistryRepositoryTags',
      'listGroups',
      'listGroupAuditEvents',
      'listInstanceAuditEvents',
    ]);
    expect(table[0]).toEqual({
      operationId: 'listUsers',
      who: 'both',
      since: '16.5',
      until: undefined,
      rules: ['PAG-KEYSET-USERS'],
      orders: [
        { order_by: 'id', sort: 'asc' },
        { order_by: 'id', sort: 'desc' },
        { order_by: 'name', sort: 'asc' },
        { order_by: 'name', sort: 'desc' },
        { order_by: 'username', sort: 'asc' },
        { order_by: 'username', sort: 'desc' },
      ],
    });
    expect(table[2].orders).toEqual([{ order_by: null, sort: null }]);
    expect(table[7]).toMatchObject({ who: 'unauthenticated', orders: [{ order_by: 'name', sort: 'asc' }] });
  });

  it('lists the CORS preflight paths with their header policy', () => {
    expect(spec.corsPreflights()[0]).toEqual({
      path: '/oauth/token',
      since: '15.1',
      rules: [
        'CORS-PREFLIGHT',
        'CORS-ALLOWED-HEADERS-LIMITED',
        'CORS-X-REQUESTED-WITH-REFUSED',
        'CORS-ALLOWED-HEADERS-LIST',
      ],
      allowedHeaders: ['authorization', 'content-type', 'accept'],
      refusedHeaders: ['x-requested-with'],
    });
    expect(spec.corsPreflights().map((c) => c.path)).toEqual(['/oauth/token', '/oauth/revoke', '/oauth/userinfo']);
  });
});

describe('rules, releases and flags', () => {
  it('names an unknown rule exactly', () => {
    expect(() => spec.rule('NOPE' as RuleId)).toThrow(new Error('unknown rule id NOPE (not in spec/rules.yaml)'));
  });

  it('releaseProblem: every minor from the oldest listed to the newest major, one wording for the rest', () => {
    const listing = `known: 15.0 to 19.x, changing at ${spec.releases().join(', ')}`;
    expect(spec.releases()).toEqual(['15.0', '15.1', '16.5', '16.7', '17.0', '17.1', '17.7', '18.0', '19.0']);
    for (const ok of ['15.0', '15.9', '16.0', '18.3', '19.0', '19.12'])
      expect(spec.releaseProblem(ok), ok).toBeUndefined();
    for (const bad of ['14.9', '1.0', '20.0', '99.0'])
      expect(spec.releaseProblem(bad), bad).toBe(`unknown release "${bad}" (${listing})`);
    for (const bad of ['18', '18.0.1', 'v18.0', '18.x', 'x18.0', '18.0x', '1a.0', '18.a', ''])
      expect(spec.releaseProblem(bad), bad).toBe(`release "${bad}" is not a release number like 17.1 (${listing})`);
  });

  it('lists the releases oldest first', () => {
    expect(spec.releases()).toEqual(['15.0', '15.1', '16.5', '16.7', '17.0', '17.1', '17.7', '18.0', '19.0']);
  });

  it('tells exactly what starts and ends at 19.0', () => {
    const at19 = spec.rulesChangingAt('19.0');
    expect(ids(at19.starting)).toEqual(['VER-PASSWORD-GRANT-REMOVED']);
    expect(ids(at19.ending)).toEqual(expect.arrayContaining(['GRANT-PASSWORD-PARAMS', 'AUTH-CLIENT-BASIC']));
    expect(ids(at19.ending)).not.toContain('VER-PASSWORD-GRANT-REMOVED');
    expect(ids(at19.starting)).not.toContain('GRANT-PASSWORD-PARAMS');
  });

  it('a flag is on by default only inside its release window, and an override wins', () => {
    expect(spec.flagsAt('17.0')).toEqual({ device_authorization_grant: false });
    expect(spec.flagsAt('17.1')).toEqual({ device_authorization_grant: true });
    expect(spec.flagsAt('17.0', { device_authorization_grant: true })).toEqual({ device_authorization_grant: true });
    expect(spec.flagsAt('18.0', { other: true })).toEqual({ device_authorization_grant: true, other: true });
  });

  it('rulesInForce keeps a rule of another offering out and a rule of no offering in', () => {
    const selfManaged = ids(spec.rulesInForce('18.0', 'self-managed'));
    const hosted = ids(spec.rulesInForce('18.0', 'hosted'));
    expect(selfManaged).toContain('VER-MEMBER-ROLES');
    expect(hosted).not.toContain('VER-MEMBER-ROLES');
    expect(hosted).toContain('PAG-HOSTED-HEADERS-OMITTED');
    expect(selfManaged).not.toContain('PAG-HOSTED-HEADERS-OMITTED');
    expect(selfManaged).toContain('CORS-PREFLIGHT');
    expect(hosted).toContain('CORS-PREFLIGHT');
    expect(ids(spec.rulesInForce('17.1', 'self-managed', { device_authorization_grant: true }))).toContain(
      'DEV-AVAILABILITY',
    );
    expect(ids(spec.rulesInForce('17.0', 'self-managed', { device_authorization_grant: true }))).not.toContain(
      'DEV-AVAILABILITY',
    );
  });
});

describe('machines and the source', () => {
  it('names an unknown machine and the file it looked for', () => {
    expect(() => spec.machine('nope')).toThrow(new Error('unknown machine nope (no spec/machines/nope.yaml)'));
  });

  it('step: otherwise is taken without asking, a condition only when it holds, first row wins', () => {
    const device = spec.machine('device-authorization');
    const asked: string[] = [];
    const row = spec.step(device, 'authorized', 'poll', (c) => {
      asked.push(c);
      return false;
    });
    expect(row).toMatchObject({ state: 'authorized', trigger: 'poll', next: 'consumed' });
    expect(asked).toEqual([]);
    expect(spec.step(device, 'pending', 'approve', () => false)).toMatchObject({ condition: 'otherwise' });
    expect(spec.step(device, 'pending', 'approve', () => true)).toMatchObject({ condition: 'code_expired' });
    expect(spec.step(device, 'pending', 'fly', () => true)).toBeUndefined();
    expect(spec.step(device, 'nowhere', 'poll', () => true)).toBeUndefined();
  });

  it('reads the source text, the source map and the target config schema', () => {
    expect(spec.sourceText().items.length).toBeGreaterThan(50);
    expect(spec.sourceMap().length).toBeGreaterThan(50);
    expect(spec.targetConfigSchema().type).toBe('object');
    expect(spec.machineNames()).toContain('device-authorization');
  });
});

// ------------------------------------------------------------------------ loading and the cache

/** A fresh spec/index.js whose readSpecFiles returns `files`, with the spec cache on or off. */
async function freshSpec(files: SpecFiles, cache: boolean) {
  vi.resetModules();
  vi.doMock('../../spec/files.js', async (importOriginal) => ({
    ...(await importOriginal<typeof import('../../spec/files.js')>()),
    readSpecFiles: () => new Map(files),
  }));
  if (cache) delete process.env.IDP_CONFORMANCE_SPEC_CACHE;
  else process.env.IDP_CONFORMANCE_SPEC_CACHE = 'off';
  return import('../../spec/index.js');
}

function withEdit(file: string, edit: (text: string) => string): SpecFiles {
  const files = readSpecFiles();
  files.set(file, edit(files.get(file)!));
  return files;
}

const cacheDir = join(dirname(spec.specDir()), 'node_modules', '.cache', 'idp-conformance');
const cacheFiles = () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.json')) : []);

describe('loading', () => {
  const saved = process.env.IDP_CONFORMANCE_SPEC_CACHE;
  const made: string[] = [];
  afterEach(() => {
    vi.doUnmock('../../spec/files.js');
    vi.resetModules();
    if (saved === undefined) delete process.env.IDP_CONFORMANCE_SPEC_CACHE;
    else process.env.IDP_CONFORMANCE_SPEC_CACHE = saved;
    for (const f of made.splice(0)) rmSync(join(cacheDir, f), { force: true });
  });

  it('an invalid spec raises one error naming its single problem', async () => {
    const files = withEdit('rules.yaml', (t) => t.replace('    level: must', '    level: mandatory'));
    const problems = validateFiles(files);
    expect(problems.length).toBe(1);
    const fresh = await freshSpec(files, false);
    expect(() => fresh.rules()).toThrow(
      new Error(
        `the spec is invalid (1 problem; run \`idp-conformance spec lint\`):\n  spec/${problems[0].file}:${problems[0].line}: ${problems[0].message}`,
      ),
    );
  });

  it('with many problems it shows the first twenty and counts the rest', async () => {
    const files = withEdit('rules.yaml', (t) => t.replaceAll('    level: must', '    level: mandatory'));
    const problems = validateFiles(files);
    expect(problems.length).toBeGreaterThan(21);
    const fresh = await freshSpec(files, false);
    const lines = problems.slice(0, 20).map((p) => `  spec/${p.file}:${p.line}: ${p.message}`);
    expect(() => fresh.faults()).toThrow(
      new Error(
        `the spec is invalid (${problems.length} problems; run \`idp-conformance spec lint\`):\n${lines.join('\n')}\n  ... and ${problems.length - 20} more`,
      ),
    );
  });

  it('exactly twenty problems are all shown, with no count of more', async () => {
    // Twenty rules broken at once, one problem each.
    let left = 20;
    const files = withEdit('rules.yaml', (t) =>
      t.replace(/ {4}level: must/g, (m) => (left-- > 0 ? '    level: mandatory' : m)),
    );
    const n = validateFiles(files).length;
    expect(n).toBe(20);
    const fresh = await freshSpec(files, false);
    expect(() => fresh.rules()).toThrow(/\(20 problems; run `idp-conformance spec lint`\):\n/);
    expect(() => fresh.rules()).not.toThrow(/more/);
  });

  it('writes the validated spec to a cache keyed by the files, and reads it back', async () => {
    const files = withEdit('faults.yaml', (t) => `${t}\n# cache test ${process.pid} ${Date.now()}\n`);
    const before = new Set(cacheFiles());
    const first = await freshSpec(files, true);
    const faults = first.faults();
    const written = cacheFiles().filter((f) => !before.has(f));
    made.push(...written);
    expect(written.length).toBe(1);
    expect(written[0]).toMatch(/^spec-[0-9a-f]{24}\.json$/);
    const cached = JSON.parse(readFileSync(join(cacheDir, written[0]), 'utf8'));
    expect(cached['faults.yaml'].faults).toEqual(faults);
    expect(Object.keys(cached).sort()).toEqual([...files.keys()].sort());

    // Read back: what the cache says is what the accessors return, without validating again.
    cached['faults.yaml'].faults = [{ name: 'from-the-cache' }];
    writeFileSync(join(cacheDir, written[0]), JSON.stringify(cached));
    const second = await freshSpec(files, true);
    expect(second.faults()).toEqual([{ name: 'from-the-cache' }]);

    // Another text is another key: the tampered entry is not served for it.
    const other = withEdit('faults.yaml', (t) => `${t}\n# other cache test ${process.pid} ${Date.now()}\n`);
    const third = await freshSpec(other, true);
    expect(third.faults()).toEqual(faults);
    made.push(...cacheFiles().filter((f) => !before.has(f) && !made.includes(f)));

    // With the cache off, nothing is read.
    const off = await freshSpec(files, false);
    expect(off.faults()).toEqual(faults);
  });

  it('a damaged cache file is only a slower start', async () => {
    const files = withEdit('faults.yaml', (t) => `${t}\n# damaged cache test ${process.pid} ${Date.now()}\n`);
    const before = new Set(cacheFiles());
    const expected = (await freshSpec(files, true)).faults();
    const written = cacheFiles().filter((f) => !before.has(f));
    made.push(...written);
    writeFileSync(join(cacheDir, written[0]), '{ not json');
    expect((await freshSpec(files, true)).faults()).toEqual(expected);
  });
});
