/** Every check of every area, in a stable order (the order runs and reports list them in). */
import type { Check } from './types.js';
import { checks as grants } from './grants/index.js';
import { checks as device } from './device/index.js';
import { checks as tokens } from './tokens/index.js';
import { checks as oidc } from './oidc/index.js';
import { checks as cors } from './cors/index.js';
import { checks as encoding } from './encoding/index.js';
import { checks as pagination } from './pagination/index.js';
import { checks as scopes } from './scopes/index.js';
import { checks as versioning } from './versioning/index.js';

export function allChecks(): Check[] {
  const all = [...grants, ...device, ...tokens, ...oidc, ...cors, ...encoding, ...pagination, ...scopes, ...versioning];
  const seen = new Set<string>();
  for (const check of all) {
    // Ids are what `run --check` and the reports name: two alike would make both ambiguous.
    if (seen.has(check.id)) throw new Error(`two checks share the id ${check.id}`);
    seen.add(check.id);
  }
  return all;
}

export { HarnessInputError, ConfigError, TargetError, SelectionError, DriverError, ReportError } from './errors.js';
