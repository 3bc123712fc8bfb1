/**
 * Encoding checks: path parameters that need URL-encoding, `+` versus %2B, bracket parameters in
 * query, form and JSON, the URL length limit, moved paths, id versus iid.
 */
import type { Check } from '../types.js';
import { arrayBody, arrayQuery, hashesEcho } from './brackets.js';
import { iidInPath } from './iid.js';
import { longParamsInBody, uriTooLong } from './long-url.js';
import { movedRedirect } from './moved.js';
import { namespacedPaths, slashedNames } from './paths.js';
import { plusVersus2B } from './plus.js';

export const checks: Check[] = [
  namespacedPaths,
  slashedNames,
  plusVersus2B,
  arrayQuery,
  hashesEcho,
  arrayBody,
  uriTooLong,
  longParamsInBody,
  movedRedirect,
  iidInPath,
];
