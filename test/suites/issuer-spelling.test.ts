/**
 * An issuer the config writes as a person may (`https://IdP.example.test:443/realms/x`: the host in
 * capitals, the default port written) names the provider whose discovery says
 * `https://idp.example.test/realms/x`: URLs compare so (RFC 3986 §6.2.2-6.2.3). Before, the two
 * were compared as strings: discovery was read at the host's root instead of the realm's, and the
 * provider's id_tokens failed OIDC-ID-TOKEN-CLAIMS on an iss the config merely spelled otherwise.
 * The id_token's iss is still held to discovery's issuer exactly (OIDC Core §3.1.3.7).
 */
import { describe, expect, it } from 'vitest';
import { discoveryPath, namesConfiguredIssuer, sameIssuer } from '../../suites/shared/oauth.js';

const PUBLISHED = 'https://idp.example.test/realms/x';
const SPELLINGS = [
  'https://IdP.Example.TEST/realms/x',
  'https://idp.example.test:443/realms/x',
  'HTTPS://IDP.EXAMPLE.TEST:443/realms/x/',
];

describe('an issuer the config spells otherwise than the provider', () => {
  it.each(SPELLINGS)('%s names the provider whose discovery says it in lower case, no port', (spelt) => {
    expect(sameIssuer(PUBLISHED, spelt)).toBe(true);
    expect(discoveryPath('https://idp.example.test', spelt)).toBe('/realms/x/.well-known/openid-configuration');
    expect(discoveryPath('https://IDP.example.test:443', PUBLISHED)).toBe('/realms/x/.well-known/openid-configuration');
  });

  it('another path, port or host is another issuer (the path keeps its case)', () => {
    for (const other of [
      'https://idp.example.test/realms/X',
      'https://idp.example.test:8443/realms/x',
      'http://idp.example.test/realms/x',
      'https://idp.example.test/realms/xy',
    ])
      expect(sameIssuer(PUBLISHED, other), other).toBe(false);
    expect(discoveryPath('https://idp.example.test:8443', PUBLISHED)).toBe('/.well-known/openid-configuration');
  });

  it("forgives the config's spelling, never the provider's: an authorization response's iss is compared as sent", () => {
    for (const spelt of SPELLINGS) expect(namesConfiguredIssuer(PUBLISHED, spelt), spelt).toBe(true);
    expect(
      namesConfiguredIssuer('https://idp.example.test:443/realms/x', 'https://idp.example.test:443/realms/x'),
    ).toBe(true);
    for (const sent of ['HTTPS://IdP.Example.TEST/realms/x', 'https://idp.example.test:443/realms/x'])
      expect(namesConfiguredIssuer(sent, PUBLISHED), sent).toBe(false);
  });
});
