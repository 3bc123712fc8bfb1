/**
 * Array (`name[]`), hash (`name[key]`) and array-of-hashes (`name[0][key]`, `name[][key]`)
 * parameters, in a query, a form body and a JSON body. Read-only on the fixture project (an array
 * filter of issues); writes (a pipeline that echoes what it read, an issue's labels) only into a
 * project the harness created through the simulator's control API.
 */
import * as fc from 'fast-check';
import { limits, type RuleId } from '../../spec/index.js';
import {
  apiHeaders,
  breaking,
  createdSoftly,
  expectRows,
  reachedFixtureProject,
  reachProject,
  jsonObject,
  ownProject,
  projectPath,
  type Expect,
} from '../shared/api.js';
import type { Check, CheckContext } from '../types.js';
import { GENERATED } from '../shared/generated.js';

/** A `name=value` pair for a raw query or form, with literal brackets in the name as the source writes it. */
function pair(name: string, value: string): string {
  return `${name}=${encodeURIComponent(value)}`;
}

/** Values with the characters that break naive encoders: & = + % # [ ] space, non-ASCII. */
const trickyValue = fc.string({ unit: fc.constantFrom(...'ab09 &=+%#[]/?é中-_.'), minLength: 0, maxLength: 12 });
const keyName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,11}$/);

/** Array filter in a GET query: labels[]=a&labels[]=b means the same as the comma form. */
export const arrayQuery: Check = {
  id: 'encoding.array-params-query',
  suite: 'encoding',
  needs: ['restApi'],
  title: 'repeated name[]=value in a query is read as an array',
  rules: ['ENC-ARRAY-PARAMS', 'ENC-PARAMS-QUERY-OR-BODY'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const expectArray: Expect = breaking(t, 'ENC-ARRAY-PARAMS');
    const issues = `${projectPath(await reachedFixtureProject(t))}/issues`;
    const listing = await t.http.get(issues, { headers, query: { per_page: limits().perPageMax } });
    t.expect(listing.status === 200, `the fixture project's issues answered ${listing.status}`, {
      status: listing.status,
      rules: ['ENC-PARAMS-QUERY-OR-BODY'],
    });
    const labelled = expectRows(listing.json(), `the fixture project's issues`, (ok, message) =>
      t.expect(ok, message, { rules: ['ENC-PARAMS-QUERY-OR-BODY'] }),
    ).filter((i): i is { id: unknown; labels: string[] } => Array.isArray(i.labels) && i.labels.length > 0);
    if (labelled.length === 0) t.skip('no labelled issue in the fixture project to filter by');
    const choice = fc.nat({ max: labelled.length - 1 }).chain((i) => fc.subarray(labelled[i].labels, { minLength: 1 }));
    await t.property(choice, async (labels) => {
      const query = labels.map((l) => pair('labels[]', l)).join('&');
      const res = await t.http.get(`${issues}?${query}&per_page=${limits().perPageMax}`, { headers });
      expectArray(res.status === 200, `GET issues?${query} answered ${res.status}, expected 200`, {
        labels,
        status: res.status,
      });
      const found = res.json<Array<{ id: unknown; labels: string[] }>>();
      const wrong = found.find((i) => !labels.every((l) => i.labels?.includes(l)));
      expectArray(!wrong, `GET issues?${query} returned an issue without every label: the array was not read`, {
        labels,
        issue: wrong?.id ?? null,
      });
      const comma = await t.http.get(issues, {
        headers,
        query: { labels: labels.join(','), per_page: limits().perPageMax },
      });
      expectArray(
        JSON.stringify(found.map((i) => i.id)) ===
          JSON.stringify(comma.json<Array<{ id: unknown }>>().map((i) => i.id)),
        `labels[] and labels=a,b select different issues`,
        { labels },
      );
    });
  },
};

/** The harness's own project for the writes of these checks. */
const SCRATCH = `${GENERATED}encoding/parameters`;

type Encoding = 'query' | 'form' | 'json';

/** What a request refused (or not read at all) in each encoding breaks. */
const CARRIER_RULE: Record<Encoding, RuleId> = {
  query: 'ENC-PARAMS-QUERY-OR-BODY',
  form: 'ENC-FORM-BODY',
  json: 'ENC-JSON-BODY-CONTENT-TYPE',
};

interface Variable {
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
}

/** The pipeline parameters as name/value pairs: arrays of hashes indexed (name[0][key]) or not (name[][key]). */
function pipelinePairs(
  ref: string,
  variables: Variable[],
  inputs: Record<string, string>,
  indexed: boolean,
): Array<[string, string]> {
  const pairs: Array<[string, string]> = [['ref', ref]];
  variables.forEach((v, i) => {
    const at = indexed ? String(i) : '';
    for (const field of ['key', 'value', 'variable_type'] as const)
      pairs.push([`variables[${at}][${field}]`, v[field]]);
  });
  for (const [k, v] of Object.entries(inputs)) pairs.push([`inputs[${k}]`, v]);
  return pairs;
}

const variablesArb: fc.Arbitrary<Variable[]> = fc.uniqueArray(
  fc.record({
    key: keyName,
    value: trickyValue,
    variable_type: fc.constantFrom<'env_var' | 'file'>('env_var', 'file'),
  }),
  { selector: (v) => v.key, minLength: 1, maxLength: 4 },
);
const inputsArb = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/), trickyValue, { minKeys: 1, maxKeys: 3 });

export const hashesEcho: Check = {
  id: 'encoding.array-and-hash-params',
  suite: 'encoding',
  title:
    'name[key] hashes and name[0][key] / name[][key] arrays of hashes mean the same in a query, a form and a JSON body',
  rules: [
    'ENC-HASH-PARAMS',
    'ENC-ARRAY-OF-HASHES',
    'ENC-PARAMS-QUERY-OR-BODY',
    'ENC-FORM-BODY',
    'ENC-JSON-BODY-CONTENT-TYPE',
    'ENC-CREATED-201',
  ],
  needs: ['control', 'writable', 'restApi'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const project = await reachProject(t, await ownProject(t, SCRATCH));
    const info = jsonObject(await t.http.get(projectPath(project), { headers }));
    const ref = typeof info?.default_branch === 'string' ? info.default_branch : 'main';
    const encoding = fc.constantFrom<Encoding>('query', 'form', 'json');
    await t.property(encoding, fc.boolean(), variablesArb, inputsArb, async (how, indexed, variables, inputs) => {
      const path = `${projectPath(project)}/pipeline`;
      const pairs = pipelinePairs(ref, variables, inputs, indexed);
      const res =
        how === 'query'
          ? await t.http.post(`${path}?${pairs.map(([k, v]) => pair(k, v)).join('&')}`, { headers })
          : how === 'form'
            ? await t.http.post(path, { headers, form: formOf(pairs) })
            : await t.http.post(path, { headers, json: { ref, variables, inputs } });
      const what = `POST pipeline with ${how === 'json' ? 'a JSON body' : how === 'form' ? 'a form body' : 'a query string'}${how !== 'json' ? (indexed ? ' (name[0][key])' : ' (name[][key])') : ''}`;
      const body = jsonObject(res);
      if (!createdSoftly(t, res, what, [CARRIER_RULE[how]])) return;
      t.expect(body, `${what} answered ${res.status} without a JSON object`, { rules: [CARRIER_RULE[how]] });
      t.expect(
        readAsSent(variables, body.variables),
        `${what}: the variables (an array of hashes) were not read as sent`,
        { sent: variables, read: body.variables, rules: ['ENC-ARRAY-OF-HASHES'] },
      );
      t.expect(sameHash(inputs, body.inputs), `${what}: the inputs (a hash) were not read as sent`, {
        sent: inputs,
        read: body.inputs,
        rules: ['ENC-HASH-PARAMS'],
      });
    });
  },
};

const labelArb = fc.uniqueArray(
  fc
    .string({ unit: fc.constantFrom(...'abz09 +&=é-'), minLength: 1, maxLength: 8 })
    .filter((s) => s.trim() === s && !s.includes(',')),
  {
    minLength: 1,
    maxLength: 4,
  },
);

export const arrayBody: Check = {
  id: 'encoding.array-params-body',
  suite: 'encoding',
  title: 'labels[]=a&labels[]=b in a form body and a JSON array in a JSON body give the same labels',
  rules: ['ENC-ARRAY-PARAMS', 'ENC-FORM-BODY', 'ENC-JSON-BODY-CONTENT-TYPE', 'ERR-NO-SERVER-ERROR', 'ENC-CREATED-201'],
  needs: ['control', 'writable', 'restApi'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const project = await reachProject(t, await ownProject(t, SCRATCH));
    await t.property(fc.constantFrom<'form' | 'json'>('form', 'json'), labelArb, async (how, labels) => {
      const path = `${projectPath(project)}/issues`;
      const res =
        how === 'form'
          ? await t.http.post(path, {
              headers,
              form: formOf([['title', 'labels check'], ...labels.map((l) => ['labels[]', l] as [string, string])]),
            })
          : await t.http.post(path, { headers, json: { title: 'labels check', labels } });
      const body = jsonObject(res);
      if (!createdSoftly(t, res, `creating an issue with labels in a ${how} body`, [CARRIER_RULE[how]])) return;
      t.expect(body, `creating an issue with labels in a ${how} body answered no JSON object`, {
        rules: [CARRIER_RULE[how]],
      });
      t.expect(
        sameValues(labels, body.labels),
        `labels sent as ${how === 'form' ? 'labels[]=…' : 'a JSON array'} were not read as sent`,
        {
          sent: labels,
          read: body.labels,
          // name[]=… is the array encoding; a JSON array misread is the JSON body misread.
          rules: [how === 'form' ? 'ENC-ARRAY-PARAMS' : CARRIER_RULE.json],
        },
      );
      if (how === 'json') {
        // The same JSON as text/plain: bad input to some servers, read anyway by lenient ones (the
        // header is the client's obligation, L191); either way never a server error.
        const plain = await t.http.post(path, {
          headers: { ...headers, 'content-type': 'text/plain' },
          json: { title: 'labels check', labels },
        });
        t.expect(
          plain.status < 500,
          `a JSON body sent as text/plain answered ${plain.status}: bad input must be a 4xx, never a 5xx`,
          { status: plain.status, rules: ['ERR-NO-SERVER-ERROR'] },
        );
      }
    });
  },
};

/** A hash read as sent: the same keys and values, in any order (JSON objects are unordered, RFC 8259 §4). */
function sameHash(sent: Record<string, string>, read: unknown): boolean {
  if (!read || typeof read !== 'object' || Array.isArray(read)) return false;
  const entries = Object.entries(read as Record<string, unknown>);
  return entries.length === Object.keys(sent).length && entries.every(([k, v]) => sent[k] === v);
}

/** An array of hashes read as sent: the same items in the same order, each with every field sent (extra fields allowed). */
function readAsSent(sent: Variable[], read: unknown): boolean {
  if (!Array.isArray(read) || read.length !== sent.length) return false;
  return sent.every((item, i) => {
    const got = read[i] as Record<string, unknown> | null;
    return !!got && typeof got === 'object' && Object.entries(item).every(([k, v]) => got[k] === v);
  });
}

/** An array read whole: every value sent, none other (an issue's labels are a set: their order is not shown). */
function sameValues(sent: string[], read: unknown): boolean {
  if (!Array.isArray(read) || read.length !== sent.length) return false;
  const sorted = (a: unknown[]) => JSON.stringify([...a].map(String).sort());
  return sorted(read) === sorted(sent);
}

function formOf(pairs: Array<[string, string]>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [k, v] of pairs) form.append(k, v);
  return form;
}
