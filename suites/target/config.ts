/**
 * The target config file (YAML or JSON; YAML reads both), validated against the JSON Schema that
 * ships in spec/ so editors and this loader agree on one shape. Every problem is one line.
 */
import { readFileSync } from 'node:fs';
import { createAjv, describeSchemaErrors, type ValidateFunction } from '../../spec/ajv.js';
import { parse } from 'yaml';
import { releaseProblem, targetConfigSchema } from '../../spec/index.js';
import { ConfigError } from '../errors.js';
import type { TargetConfig } from '../types.js';

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
  return config;
}

/** `http://user:pass@host`: a password in a URL is echoed wherever the URL is shown. */
export const hasUserinfo = (url: string): boolean => /^[a-z][\w+.-]*:\/\/[^/?#]*@/i.test(url);

/** The URL with any user and password replaced, for a message that must quote it. */
export const withoutUserinfo = (url: string): string => url.replace(/^([a-z][\w+.-]*:\/\/)[^/?#]*@/i, '$1…@');

export const NO_USERINFO =
  'must not carry a user or password (user@ or user:password@): give credentials in a --config file (user, personalAccessToken, applications)';

export function parseTargetConfig(text: string, origin = 'target config'): TargetConfig {
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new ConfigError(`${origin}: not valid YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  return validateTargetConfig(value, origin);
}

export function loadTargetConfig(file: string): TargetConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return parseTargetConfig(text, file);
}
