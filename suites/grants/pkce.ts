/** PKCE (RFC 7636, S256): which verifiers a provider must accept and which it must refuse. */
import type { RuleId } from '../../spec/index.js';
import fc from 'fast-check';
import type { AuthorizeOutcome, Check, CheckContext } from '../types.js';
import { authorizeCode, exchangeCode, expectOAuthError, expectTokenOk } from '../shared/oauth.js';
import { expectTokenFields } from './token-fields.js';
import { invalidVerifiers, s256, validVerifier } from './verifiers.js';

/** A PKCE code for the public application whose challenge is the S256 of `verifier` (whatever it is). */
function pkceCode(t: CheckContext, verifier: string, rules: readonly RuleId[] = []): Promise<string> {
  return authorizeCode(t, 'public', { code_challenge: s256(verifier), code_challenge_method: 'S256' }, [
    'PKCE-METHOD-S256',
    ...rules,
  ]);
}

/**
 * A refused challenge method: no code (the rule's own sentence), and in the error redirect
 * invalid_request (RFC 7636 §4.4.1); stopping on a page instead is only how it was delivered.
 */
function expectMethodRefused(t: CheckContext, outcome: AuthorizeOutcome, method: string, rule: RuleId): void {
  const { redirect, response } = outcome;
  const error = redirect?.searchParams.get('error') ?? null;
  t.expect(!redirect?.searchParams.has('code'), `a code was issued for code_challenge_method "${method}"`, {
    method,
    rules: [rule],
  });
  if (
    !t.soft(redirect, `the refusal of code_challenge_method "${method}" should redirect with the error`, {
      method,
      status: response.status,
      rules: ['GRANT-AUTHORIZE-ERROR-REDIRECT'],
    })
  )
    return;
  t.expect(error === 'invalid_request', `the refusal of code_challenge_method "${method}" must carry invalid_request`, {
    method,
    error,
    rules: [rule],
  });
}

/** The syntax rule an invalid verifier breaks. */
const VERIFIER_RULE = {
  'too-short': 'PKCE-VERIFIER-LENGTH',
  'too-long': 'PKCE-VERIFIER-LENGTH',
  'foreign-character': 'PKCE-VERIFIER-CHARSET',
} as const;

export const pkceChecks: Check[] = [
  {
    id: 'grants.pkce-valid-verifier',
    suite: 'grants',
    title: 'Any verifier of 43 to 128 allowed characters redeems the code whose challenge is its S256',
    rules: [
      'PKCE-CHALLENGE-S256',
      'PKCE-METHOD-S256',
      'PKCE-VERIFIER-LENGTH',
      'PKCE-VERIFIER-CHARSET',
      'PKCE-TOKEN-PARAMS',
      'PKCE-NO-SECRET',
      'GRANT-PKCE-FLOW',
      'TOK-CODE-RESPONSE-FIELDS',
    ],
    async run(t: CheckContext) {
      await t.property(validVerifier(), async (verifier) => {
        const code = await pkceCode(t, verifier, ['GRANT-PKCE-FLOW']);
        const res = await exchangeCode(t, 'public', code, { code_verifier: verifier });
        // Any rule of a valid verifier's exchange may be the one a refusal breaks: its length, its characters, the S256 match, the secretless request.
        const refused: RuleId[] = [
          'PKCE-CHALLENGE-S256',
          'PKCE-VERIFIER-LENGTH',
          'PKCE-VERIFIER-CHARSET',
          'PKCE-TOKEN-PARAMS',
          'PKCE-NO-SECRET',
          'GRANT-PKCE-FLOW',
        ];
        expectTokenFields(
          t,
          expectTokenOk(t, res, 'code exchange with a valid verifier', refused),
          'authorization_code',
          'PKCE token response',
        );
      });
    },
  },
  {
    id: 'grants.pkce-invalid-verifier',
    suite: 'grants',
    title:
      'A verifier too short, too long or with a character outside A-Z a-z 0-9 - . _ ~ is refused, even when its S256 matches',
    rules: ['PKCE-VERIFIER-LENGTH', 'PKCE-VERIFIER-CHARSET'],
    async run(t: CheckContext) {
      await t.property(invalidVerifiers(), async (verifiers) => {
        for (const { kind, verifier } of verifiers) {
          const code = await pkceCode(t, verifier);
          const res = await exchangeCode(t, 'public', code, { code_verifier: verifier });
          expectOAuthError(
            t,
            res,
            { status: 400, error: ['invalid_grant', 'invalid_request'], rules: [VERIFIER_RULE[kind]] },
            `code exchange with a ${kind} verifier (${[...verifier].length} characters)`,
          );
        }
      });
    },
  },
  {
    id: 'grants.pkce-verifier-mismatch',
    suite: 'grants',
    title: 'A well-formed verifier that is not the one behind the challenge, or none at all, is refused',
    rules: ['PKCE-VERIFIER-MISMATCH', 'PKCE-VERIFIER-REQUIRED'],
    async run(t: CheckContext) {
      // Both cases every run, each on its own code: a drawn boolean choosing one hid the mismatch for whole seeds.
      await t.property(
        fc.tuple(validVerifier(), validVerifier()).filter(([a, b]) => a !== b),
        async ([original, other]) => {
          const wrong = await exchangeCode(t, 'public', await pkceCode(t, original), { code_verifier: other });
          expectOAuthError(
            t,
            wrong,
            { status: 400, error: 'invalid_grant', rules: ['PKCE-VERIFIER-MISMATCH'] },
            'code exchange with a verifier other than the challenged one',
          );
          const none = await exchangeCode(t, 'public', await pkceCode(t, original), { code_verifier: undefined });
          // A missing parameter may also be invalid_request (RFC 6749 §5.2).
          expectOAuthError(
            t,
            none,
            { status: 400, error: ['invalid_grant', 'invalid_request'], rules: ['PKCE-VERIFIER-REQUIRED'] },
            'code exchange without code_verifier',
          );
        },
      );
    },
  },
  {
    id: 'grants.pkce-method-unsupported',
    suite: 'grants',
    title: 'A code_challenge_method that is no RFC 7636 method issues no code; its error redirect says invalid_request',
    rules: ['PKCE-METHOD-UNSUPPORTED', 'GRANT-AUTHORIZE-ERROR-REDIRECT'],
    async run(t: CheckContext) {
      await t.property(validVerifier(), fc.constantFrom('s256', 'S512', 'none', 'PLAIN'), async (verifier, method) => {
        const outcome = await t.driver.authorize(
          t.oauth.authorizeUrl('public', { code_challenge: s256(verifier), code_challenge_method: method }),
          'approve',
          { refusable: true },
        );
        expectMethodRefused(t, outcome, method, 'PKCE-METHOD-UNSUPPORTED');
      });
    },
  },
  {
    id: 'grants.pkce-method-plain',
    suite: 'grants',
    title:
      'plain (or no method) is refused with invalid_request, or supported: the code then takes the challenge as verifier',
    rules: ['PKCE-METHOD-PLAIN', 'GRANT-AUTHORIZE-ERROR-REDIRECT'],
    async run(t: CheckContext) {
      await t.property(validVerifier(), fc.constantFrom('plain', undefined), async (verifier, method) => {
        const shown = method ?? '(none)';
        const outcome = await t.driver.authorize(
          t.oauth.authorizeUrl('public', { code_challenge: verifier, code_challenge_method: method }),
          'approve',
          { refusable: true },
        );
        const code = outcome.redirect?.searchParams.get('code');
        if (!code) return expectMethodRefused(t, outcome, shown, 'PKCE-METHOD-PLAIN');
        // Supported: plain compares the verifier with the challenge as sent (RFC 7636 §4.6).
        expectTokenOk(
          t,
          await exchangeCode(t, 'public', code, { code_verifier: verifier }),
          `code exchange of a code_challenge_method ${shown} code with the challenge as verifier`,
          ['PKCE-METHOD-PLAIN'],
        );
      });
    },
  },
];
