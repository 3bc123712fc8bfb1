/**
 * The target config file (YAML or JSON; YAML reads both), validated against the JSON Schema that
 * ships in spec/ so editors and this loader agree on one shape. Every problem is one line.
 */
import { readFileSync } from 'node:fs';
import { createAjv, describeSchemaErrors, type ValidateFunction } from '../../spec/ajv.js';
import { parseDocument } from 'yaml';
import { releaseProblem, targetConfigSchema } from '../../spec/index.js';
import { ConfigError } from '../errors.js';
import type { TargetConfig } from '../types.js';
import { unplainHost } from './origin.js';
import { hasQueryOrFragment, hasUserinfo, NO_QUERY } from './url-text.js';

let validator: ValidateFunction | undefined;
/** Compiled once from the schema that ships in spec/ (the one editors complete against). */
function validate(): ValidateFunction {
  if (validator) return validator;
  // The schema declares JSON Schema 2020-12, as every schema of spec/ does.
  // Every problem at once, with the parent schema for "did you mean" on a misspelt key.
  return (validator = createAjv({ allErrors: true, verbose: true, strict: false }).compile(targetConfigSchema()));
}

/** Check a parsed config; throws ConfigError naming every problem, in one line. */
export function validateTargetConfig(value: unknown, origin = 'target config'): TargetConfig {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(`${origin}: expected a mapping of settings`);
  const check = validate();
  if (!check(value)) throw new ConfigError(`${origin}: ${describeSchemaErrors(check.errors!, 'config')}`);
  const config = value as TargetConfig;
  const releaseWrong = config.release === undefined ? undefined : releaseProblem(String(config.release));
  if (releaseWrong) throw new ConfigError(`${origin}: release: ${releaseWrong}`);
  // The schema says so too; kept so the type below is never a lie.
  if (typeof config.baseUrl !== 'string' || !/^https?:\/\/[^/]/i.test(config.baseUrl)) {
    throw new ConfigError(`${origin}: baseUrl must be an http(s) URL`);
  }
  if (hasUserinfo(config.baseUrl)) throw new ConfigError(`${origin}: baseUrl ${NO_USERINFO}`);
  if (hasQueryOrFragment(config.baseUrl)) throw new ConfigError(`${origin}: baseUrl ${NO_QUERY}`);
  // The origin guard refuses every request to such a host: said once, here, not as each check's error.
  for (const [field, url] of [
    ['baseUrl', config.baseUrl] as const,
    ...(config.trustedOrigins ?? []).map((o, i) => [`trustedOrigins[${i}]`, o] as const),
  ]) {
    const unplain = unplainHost(url);
    if (unplain) throw new ConfigError(`${origin}: ${field} ${unplain}`);
  }
  // The other URLs the harness quotes and vouches for as the run's own (runner/redact.ts): a password
  // in one would be neither pinned as a secret nor kept out of reports.
  if (typeof config.issuer === 'string' && hasUserinfo(config.issuer))
    throw new ConfigError(`${origin}: issuer ${NO_USERINFO}`);
  for (const [role, app] of Object.entries(config.applications ?? {}))
    if (typeof app?.redirectUri === 'string' && hasUserinfo(app.redirectUri))
      throw new ConfigError(`${origin}: applications.${role}.redirectUri ${NO_USERINFO}`);
  return config;
}

export { hasQueryOrFragment, hasUserinfo, NO_QUERY, quotableUrl, withoutUserinfo } from './url-text.js';

export const NO_USERINFO =
  'must not carry a user or password (user@ or user:password@): give credentials in a --config file (user, personalAccessToken, applications)';

/** `${NAME}` (and `$${NAME}`, the literal text `${NAME}`). */
const ENV_REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The config with every `${NAME}` in a string value replaced by that environment variable, so
 * secrets can stay out of the file (CI keeps them as masked variables). Only the user's own file
 * is expanded, never what a target says of itself: a target naming `${AWS_SECRET_ACCESS_KEY}` as
 * its client secret would have it sent to it. An unset or empty variable is the user's mistake,
 * named with the setting, never with a value.
 */
export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, origin: string, path = ''): unknown {
  if (typeof value === 'string')
    return value.replace(ENV_REFERENCE, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1);
      const set = env[name];
      if (set === undefined || set === '')
        throw new ConfigError(
          `${origin}: ${path || 'a value'}: the environment variable ${name} is ${set === undefined ? 'not set' : 'empty'} (the config reads it as \${${name}})`,
        );
      return set;
    });
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, origin, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expandEnv(item, env, origin, path ? `${path}.${key}` : key)]),
    );
  return value;
}

/**
 * What is wrong with the YAML, and where, without a character of the file: the line it quotes, or
 * the name of an alias or a tag (`password: *secret`, `password: !secret`), may be the password.
 * The library's words are kept up to their first colon, past which it quotes.
 */
function yamlProblem(error: Error & { linePos?: { line: number; col: number }[] }): string {
  const what = error.message.split(':')[0].replace(/ at line \d+, column \d+$/, '');
  const at = error.linePos?.[0];
  const hint = what.startsWith('Unresolved') ? '; a value that starts with *, & or ! needs quotes' : '';
  return `${what}${at ? ` at line ${at.line}, column ${at.col}` : ''}${hint}`;
}

/** A config file's text; `env`, the environment its `${NAME}` references read (the user's file only). */
export function parseTargetConfig(text: string, origin = 'target config', env?: NodeJS.ProcessEnv): TargetConfig {
  let value: unknown;
  try {
    // Warnings too (an unresolved `!tag` would be dropped from the value, and the library prints
    // them with the line quoted); none is printed.
    const doc = parseDocument(text, { logLevel: 'silent' });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw problem;
    value = doc.toJS();
  } catch (error) {
    throw new ConfigError(`${origin}: not valid YAML or JSON (${yamlProblem(error as Error)})`);
  }
  return validateTargetConfig(env ? expandEnv(value, env, origin) : value, origin);
}

export function loadTargetConfig(file: string, env: NodeJS.ProcessEnv = process.env): TargetConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseTargetConfig(text, file, env);
}
