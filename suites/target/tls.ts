/**
 * A TLS certificate the harness does not trust, in words that say what to change. It is no answer
 * of the target and no evidence about any rule: the user's setup (a private CA, a host name the
 * certificate does not name) or the provider's (an expired certificate). The way out is never to
 * switch verification off: the config's credentials would go to whoever answers.
 */

/** A private or self-signed CA: Node trusts it when given its certificate. */
const GIVE_CA = 'to trust its CA, give its certificate (PEM) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem';

/** Node's (OpenSSL's) error codes, each with what is wrong and what to do. */
const CERTIFICATE_ERRORS: Record<string, [what: string, todo: string]> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: ['is self-signed', GIVE_CA],
  SELF_SIGNED_CERT_IN_CHAIN: ['comes from a CA that is not trusted', GIVE_CA],
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: ['comes from a CA that is not trusted', GIVE_CA],
  UNABLE_TO_GET_ISSUER_CERT: ['comes from a CA that is not trusted', GIVE_CA],
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: [
    'cannot be verified (a CA that is not trusted, or an intermediate certificate the server does not send)',
    GIVE_CA,
  ],
  CERT_HAS_EXPIRED: ['has expired', 'the provider must renew it'],
  CERT_NOT_YET_VALID: ['is not valid yet', "check this machine's clock"],
  ERR_TLS_CERT_ALTNAME_INVALID: ['does not name this host', 'give baseUrl a host name the certificate names'],
};

/** The sentence for a TLS certificate error, or undefined when `code` is none. */
export function untrustedCertificate(host: string, code: string): string | undefined {
  const known = CERTIFICATE_ERRORS[code];
  return known && `the TLS certificate of ${host} ${known[0]} (${code}): ${known[1]}`;
}
