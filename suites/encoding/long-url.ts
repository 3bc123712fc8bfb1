/**
 * A URL over the length limit answers 414; the same parameters travel in a body instead.
 * The limit is the instance's setting when the settings API shows it, else the profile default.
 */
import * as fc from 'fast-check';
import { apiHeaders, instanceSetting, jsonObject, ownProject, reachProject } from '../shared/api.js';
import type { Check, CheckContext } from '../types.js';
import { GENERATED } from '../shared/generated.js';

/** Filler of words, not one long run: long runs of word characters are slow for log redaction. */
function words(length: number, space: string): string {
  return `lorem${space}`.repeat(Math.ceil(length / 6)).slice(0, Math.max(0, length));
}

/** A request target of exactly `length` bytes: `/api/v4/projects?search=lorem+lorem+…`. */
function targetOfLength(length: number): string {
  const base = '/api/v4/projects?search=';
  return base + words(length - base.length, '+');
}

/** How far past the limit: a byte, or a few kilobytes (kept below Node's own header limit). */
const excess = fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 4096 }));

export const uriTooLong: Check = {
  id: 'encoding.uri-too-long-414',
  suite: 'encoding',
  needs: ['restApi'],
  title: 'a GET whose URL exceeds the limit answers 414; one within it does not',
  rules: ['ENC-URI-TOO-LONG', 'LIM-MAX-URL-LENGTH'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const limit = await instanceSetting(t, 'max_url_length', 'maxUrlLength');
    // Right up to the limit only where the limit is known exactly (the simulator); a live
    // deployment's front proxy may count a little differently, so stay well inside there.
    const withinLength = fc.integer({ min: 64, max: t.caps.control ? limit : Math.floor(limit / 2) });
    await t.property(excess, withinLength, async (over, within) => {
      const long = targetOfLength(limit + over);
      const res = await t.http.get(long, { headers });
      t.expect(
        res.status === 414,
        `a GET of ${long.length} bytes (limit ${limit}) answered ${res.status}, expected 414`,
        {
          bytes: long.length,
          limit,
          status: res.status,
          rules: ['ENC-URI-TOO-LONG', 'LIM-MAX-URL-LENGTH'],
        },
      );
      const fits = targetOfLength(within);
      const ok = await t.http.get(fits, { headers });
      // Refusing a URL within the limit is a limit set lower than the setting.
      t.expect(
        ok.status === 200,
        `a GET of ${fits.length} bytes (within the limit ${limit}) answered ${ok.status}, expected 200`,
        { bytes: fits.length, limit, status: ok.status, rules: ['LIM-MAX-URL-LENGTH'] },
      );
    });
  },
};

export const longParamsInBody: Check = {
  id: 'encoding.long-params-in-body',
  suite: 'encoding',
  title: 'parameters too long for a URL are accepted in a request body',
  rules: ['ENC-LONG-PARAMS-IN-BODY'],
  needs: ['control', 'writable', 'restApi'],
  async run(t: CheckContext) {
    const headers = await apiHeaders(t);
    const limit = await instanceSetting(t, 'max_url_length', 'maxUrlLength');
    const path = await reachProject(t, await ownProject(t, `${GENERATED}encoding/long-parameters`));
    const issues = `/api/v4/projects/${encodeURIComponent(path)}/issues`;
    await t.property(excess, fc.constantFrom<'form' | 'json'>('form', 'json'), async (over, how) => {
      const description = words(limit + over, ' ');
      const inQuery = await t.http.post(`${issues}?title=long&description=${description.replace(/ /g, '+')}`, {
        headers,
      });
      // That the long URL is refused is ENC-URI-TOO-LONG's sentence (Errors: query string too long),
      // not this one's: judged softly under that rule, and the body is judged either way.
      t.soft(
        inQuery.status === 414,
        `the parameters in the URL (${limit + over} bytes of description) answered ${inQuery.status}, expected 414`,
        { status: inQuery.status, rules: ['ENC-URI-TOO-LONG'] },
      );
      const res =
        how === 'form'
          ? await t.http.post(issues, { headers, form: { title: 'long', description } })
          : await t.http.post(issues, { headers, json: { title: 'long', description } });
      const body = jsonObject(res);
      // Read is any 2xx (201 exactly is ENC-CREATED-201's, judged by the bracket checks).
      t.expect(
        res.status >= 200 && res.status < 300,
        `the same parameters in a ${how} body answered ${res.status}, expected a 2xx`,
        { status: res.status },
      );
      t.expect(body?.description === description, `the ${how} body's long description was not read whole`, {
        sent: description.length,
        read: typeof body?.description === 'string' ? body.description.length : null,
      });
    });
  },
};
