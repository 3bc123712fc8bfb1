/** The small part of oidc-provider (v9, untyped JavaScript) the independent-provider test uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface AccessToken {
    accountId?: string;
    scope?: string;
    isExpired: boolean;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    AccessToken: { find(value: string): Promise<AccessToken | undefined> };
  }
}
