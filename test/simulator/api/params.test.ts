/**
 * Rack-style parameters, exact outputs: each bracket shape, each conflict with its message, the
 * depth limit at its boundary, the plus fault, the body/query merge and every typed reader.
 */
import { describe, expect, it } from 'vitest';
import {
  ParamError,
  bool,
  hash,
  hashes,
  list,
  parsePairs,
  queryPairs,
  readParams,
  str,
  type Params,
} from '../../../simulator/api/params.js';
import type { Ctx, ParsedBody, Sim } from '../../../simulator/types.js';

const parse = (query: string) => parsePairs(new URLSearchParams(query));

function ctx(search: string, body: ParsedBody = { kind: 'none' }, faults: string[] = []): Ctx {
  const url = new URL(`http://127.0.0.1/api/v4/x${search}`);
  const sim = { fault: (n: string) => faults.includes(n) } as unknown as Sim;
  return { sim, url, query: url.searchParams, body: async () => body } as unknown as Ctx;
}

function problem(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ParamError);
    return (e as Error).message;
  }
  throw new Error('no ParamError');
}

describe('parsePairs', () => {
  it('reads each bracket shape exactly', () => {
    expect(parse('a=1&b=')).toEqual({ a: '1', b: '' });
    expect(parse('a[]=1&a[]=2')).toEqual({ a: ['1', '2'] });
    expect(parse('a[x]=1&a[y]=2')).toEqual({ a: { x: '1', y: '2' } });
    expect(parse('a[x][y]=1')).toEqual({ a: { x: { y: '1' } } });
    expect(parse('a[1][k]=b&a[0][k]=a&a[10][k]=c')).toEqual({ a: [{ k: 'a' }, { k: 'b' }, { k: 'c' }] });
    expect(parse('a[][k]=1&a[][v]=2&a[][k]=3')).toEqual({ a: [{ k: '1', v: '2' }, { k: '3' }] });
    expect(parse('a[][k][x]=1&a[][k][y]=2&a[][k][x]=3')).toEqual({
      a: [{ k: { x: '1', y: '2' } }, { k: { x: '3' } }],
    });
    expect(parse('a[][k][]=1&a[][k][]=2')).toEqual({ a: [{ k: ['1'] }, { k: ['2'] }] });
    expect(parse('a[][k]=1&a[]=2')).toEqual({ a: [{ k: '1' }, '2'] });
    expect(parse('a[]=2&a[][k]=1')).toEqual({ a: ['2', { k: '1' }] });
    expect(parse('a[x]=1&a[0]=2')).toEqual({ a: { x: '1', 0: '2' } });
    expect(parse('a[0]=1')).toEqual({ a: ['1'] });
  });

  it('keeps names that are not bracket names whole', () => {
    expect(parse('a]b=1&[x]=2&a[b=3&a[b]c=4&a[b]]=5')).toEqual({
      'a]b': '1',
      '[x]': '2',
      'a[b': '3',
      'a[b]c': '4',
      'a[b]]': '5',
    });
    expect(parse('a b[c d]=1')).toEqual({ 'a b': { 'c d': '1' } });
  });

  it('nests up to eight names and refuses a ninth', () => {
    expect(parse('a[1][2][3][4][5][6][x]=v')).toEqual({ a: [[[[[[{ x: 'v' }]]]]]] });
    expect(problem(() => parse('a[1][2][3][4][5][6][7][x]=v'))).toBe('a is nested too deeply');
  });

  it('names every conflict of one parameter used twice in two shapes', () => {
    const conflict = (q: string, name: string) =>
      expect(
        problem(() => parse(q)),
        q,
      ).toBe(`${name} conflicts with another parameter of the same name`);
    conflict('a[x]=1&a=2', 'a');
    conflict('a[]=1&a=2', 'a');
    conflict('a=1&a[]=2', 'a[]');
    conflict('a=1&a[x]=2', 'a[x]');
    conflict('a[]=1&a[x]=2', 'a[x]');
    conflict('a[x]=1&a[]=2', 'a[]');
    conflict('a[x]=1&a[x][y]=2', 'a[x][y]');
    expect(parse('a=1&a=2')).toEqual({ a: '2' });
  });
});

describe('queryPairs', () => {
  it('reads + as a space and %2B as a plus', () => {
    expect(queryPairs(ctx('?q=a+b&r=a%2Bb'))).toEqual([
      ['q', 'a b'],
      ['r', 'a+b'],
    ]);
  });

  it('with plus-read-as-plus keeps a bare +, still decodes the rest and survives bad escapes', () => {
    const faulty = (search: string) => queryPairs(ctx(search, undefined, ['plus-read-as-plus']));
    expect(faulty('?q=a+b&r=a%2Bb&&flag&e=x=y&bad=%E0%A4%A&%ZZ=1')).toEqual([
      ['q', 'a+b'],
      ['r', 'a+b'],
      ['flag', ''],
      ['e', 'x=y'],
      ['bad', '%E0%A4%A'],
      ['%ZZ', '1'],
    ]);
    expect(faulty('')).toEqual([]);
    expect(faulty('?')).toEqual([]);
  });
});

describe('readParams', () => {
  it('merges the query with a form or JSON body, the body winning', async () => {
    expect(await readParams(ctx('?a=1&b=2'))).toEqual({ a: '1', b: '2' });
    expect(await readParams(ctx('?a=1&b=2', { kind: 'form', form: new URLSearchParams('b=3&c[]=4') }))).toEqual({
      a: '1',
      b: '3',
      c: ['4'],
    });
    expect(await readParams(ctx('?a=1&b=2', { kind: 'json', json: { b: true, d: [1] } }))).toEqual({
      a: '1',
      b: true,
      d: [1],
    });
  });

  it('refuses an unreadable body and a JSON body that is not an object, with the reason', async () => {
    await expect(readParams(ctx('', { kind: 'invalid', reason: 'the body is not JSON' }))).rejects.toThrow(
      new ParamError('the body is not JSON'),
    );
    for (const json of [[1], 'x', null, 3]) {
      await expect(readParams(ctx('', { kind: 'json', json })), JSON.stringify(json)).rejects.toThrow(
        new ParamError('a JSON body must be an object'),
      );
    }
  });
});

describe('typed readers', () => {
  const p: Params = {
    s: 'x',
    n: 3,
    t: true,
    f: false,
    nul: null,
    arr: ['a', 'b'],
    mixed: ['a', { k: 'v' }],
    nulls: ['a', null],
    obj: { k: 'v' },
    hs: [{ k: 'v' }],
    csv: ' a, b ,,c ',
    yes: 'true',
    no: 'false',
  };

  it('str', () => {
    expect(str(p, 's')).toBe('x');
    expect(str(p, 'n')).toBe('3');
    expect(str(p, 't')).toBe('true');
    expect(str(p, 'missing')).toBeUndefined();
    expect(str(p, 'nul')).toBeUndefined();
    expect(problem(() => str(p, 'obj'))).toBe('obj is invalid');
    expect(problem(() => str(p, 'arr'))).toBe('arr is invalid');
  });

  it('bool', () => {
    expect(bool(p, 't')).toBe(true);
    expect(bool(p, 'yes')).toBe(true);
    expect(bool(p, 'f')).toBe(false);
    expect(bool(p, 'no')).toBe(false);
    expect(bool(p, 'missing')).toBeUndefined();
    for (const name of ['s', 'n', 'nul', 'obj']) {
      expect(problem(() => bool(p, name))).toBe(`${name} is invalid: a boolean argument must be true or false`);
    }
  });

  it('list', () => {
    expect(list(p, 'arr')).toEqual(['a', 'b']);
    expect(list(p, 'csv')).toEqual(['a', 'b', 'c']);
    expect(list(p, 'n')).toEqual(['3']);
    expect(list(p, 'nulls')).toEqual(['a', 'null']);
    expect(list(p, 'missing')).toBeUndefined();
    expect(list(p, 'nul')).toBeUndefined();
    expect(problem(() => list(p, 'mixed'))).toBe('mixed must be a list of strings');
    expect(problem(() => list(p, 'obj'))).toBe('obj must be a list');
  });

  it('hashes and hash', () => {
    expect(hashes(p, 'hs')).toEqual([{ k: 'v' }]);
    expect(hashes(p, 'missing')).toBeUndefined();
    expect(hashes(p, 'nul')).toBeUndefined();
    for (const name of ['mixed', 'obj', 's', 'nulls']) {
      expect(problem(() => hashes(p, name))).toBe(`${name} must be an array of hashes`);
    }
    expect(hashes({ e: [] }, 'e')).toEqual([]);
    expect(hash(p, 'obj')).toEqual({ k: 'v' });
    expect(hash(p, 'missing')).toBeUndefined();
    expect(hash(p, 'nul')).toBeUndefined();
    for (const name of ['arr', 's', 'hs']) expect(problem(() => hash(p, name))).toBe(`${name} must be a hash`);
  });
});
