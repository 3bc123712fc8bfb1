/** The scope names the spec knows (SCOPE-NAMES), read from the OpenAPI oauth2 security scheme. */
import { openapi } from '../../spec/index.js';

export function namedScopes(): string[] {
  const schemes = (openapi().components?.securitySchemes ?? {}) as Record<
    string,
    { type?: string; flows?: Record<string, { scopes?: Record<string, string> }> }
  >;
  const names = new Set<string>();
  for (const scheme of Object.values(schemes)) {
    if (scheme.type !== 'oauth2') continue;
    for (const flow of Object.values(scheme.flows ?? {}))
      for (const name of Object.keys(flow.scopes ?? {})) names.add(name);
  }
  if (names.size === 0) throw new Error('spec/openapi.yaml declares no oauth2 security scheme with scopes');
  return [...names];
}
