/**
 * CONSENT_PHRASES read on a deny visit before a step (review 9, item 4): a consent written for people
 * asks in its words ("Sample App would like to access your account"), but ordinary pages do not: no
 * bare "consent" (a OneTrust banner's "Manage consent preferences", shown or hidden), "permission",
 * nor "wants to" with no "… your" after it (Google's "Google wants to make sure it's really you",
 * Okta Verify's "wants to send you notifications"). Hidden elements and closed dialogs are not read.
 */
import { describe, expect, it } from 'vitest';
import { stepMayApprove } from '../../suites/drivers/sign-in.js';

const AUTH =
  'https://idp.example/oauth/authorize?client_id=3f6c2a9e81d04b7c&scope=openid%20read_user&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=s';
const URIS = ['https://app.example/cb'];
const page = (body: string) => `<html><head><title>t</title></head><body>${body}</body></html>`;
const mayApprove = (body: string) =>
  stepMayApprove({ html: page(body), url: 'https://idp.example/x' }, AUTH, URIS, false);
const step = (action: string, inner = '') =>
  `<form method="post" action="${action}">${inner}<button>Continue</button></form>`;

describe('ordinary pages are not read as a consent (a step on them is taken on the deny visit)', () => {
  it.each([
    [
      'an MFA set-up under a cookie banner saying consent',
      `<div id="onetrust-banner">We use cookies. Manage consent preferences</div><h1>Set up two-factor authentication</h1>${step('/mfa')}`,
    ],
    [
      "a hidden preference centre's permissions",
      `<div id="pc" style="display:none">Your privacy. Let Sample App access your data. Permissions</div><h1>Verify your email</h1>${step('/verify', '<input name="otp">')}`,
    ],
    [
      'a hidden attribute, aria-hidden and a closed dialog',
      `<div hidden><div>Sample App would like to access your account</div></div><p aria-hidden="true">wants to see your name</p><dialog><p>Sample App is requesting access</p></dialog><h1>Verify</h1>${step('/verify')}`,
    ],
    [
      'a password expiry mentioning permission',
      `<h1>Your password has expired</h1><p>You need permission from your admin to skip this.</p>${step('/pw')}`,
    ],
    [
      'Okta Verify "wants to"',
      `<h1>Okta Verify</h1><p>Okta Verify wants to send you notifications.</p>${step('/enroll')}`,
    ],
    [
      'Google "wants to make sure"',
      `<h1>Verify it's you</h1><p>Google wants to make sure it's really you trying to sign in.</p>${step('/challenge')}`,
    ],
    ['Entra "¿Quiere mantener la sesión iniciada?"', `<h1>¿Quiere mantener la sesión iniciada?</h1>${step('/kmsi')}`],
  ])('%s', (_, body) => {
    expect(mayApprove(body)).toBeUndefined();
  });
});

describe('a consent written for people still reads as one', () => {
  it.each([
    'Sample App would like to access your account',
    'Sample App wants to see your name and email address',
    'Sample App would like to be able to view your profile',
    'Sample App möchte auf Ihr Konto zugreifen',
    'Sample App souhaite accéder à votre compte',
    'Sample App quiere acceder a tu cuenta',
    'Sample App is requesting access to your account',
    '<dialog open>Sample App would like to access your account</dialog>',
  ])('%s', (words) => {
    expect(mayApprove(`<h1>${words}</h1>${step('/consent')}`)).toMatch(/^asks for consent/);
  });
});
