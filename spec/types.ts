/** Types of the spec data (see spec/*.schema.json for the file formats). */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { FaultName, OperationId, RuleId } from './ids.js';

export type { FaultName, OperationId, RuleId } from './ids.js';

export type Level = 'must' | 'should' | 'info';
export type Offering = 'self-managed' | 'hosted';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head';

export interface OperationInfo {
  operationId: OperationId;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/api/v4/projects/{id}`. */
  path: string;
  tags: string[];
  /** A parameter allowed to span several path segments (x-greedy). */
  greedy?: string;
  since?: string;
  until?: string;
  flag?: string;
  rules: RuleId[];
  deprecated: boolean;
  raw: OpenAPIV3_1.OperationObject;
}

/** The RFC 2119 words a sentence of an RFC or standard may carry, or none; ABNF: its normative grammar. */
export type Modal =
  | 'MUST'
  | 'MUST NOT'
  | 'REQUIRED'
  | 'SHALL'
  | 'SHALL NOT'
  | 'ABNF'
  | 'SHOULD'
  | 'SHOULD NOT'
  | 'RECOMMENDED'
  | 'MAY'
  | 'OPTIONAL'
  | 'none';

export interface Rule {
  id: RuleId;
  title: string;
  statement: string;
  level: Level;
  /** Section path of source-spec.md, or an RFC section "(not shown)". */
  source: string;
  /** Where the rule's force comes from: `source`, `documented`, or an RFC/standard section. */
  origin: string;
  /** Of an RFC or standard origin: the RFC 2119 word of the sentence the rule carries (`none`: without one). */
  modal?: Modal;
  /** Why the level departs from what `modal` gives. */
  levelWhy?: string;
  since?: string;
  until?: string;
  offering?: Offering;
  flag?: string;
  /** Instance setting (profiles.yaml settings) that gates the rule. */
  setting?: string;
  /** Why the rule judges a property of an answer that no other assertion reads (rules.schema.json). */
  leaf?: string;
}

export interface FlagInfo {
  default: boolean;
  since?: string;
  until?: string;
  description?: string;
  source?: string;
  rules?: RuleId[];
  /** The discovery document member present exactly when the flag is on (RFC 8628 §4 for the device grant). */
  discovery?: string;
}

export interface SettingInfo {
  default: unknown;
  description?: string;
  source?: string;
  offering?: Offering;
  rules?: RuleId[];
}

export interface ReleaseInfo {
  description: string;
  source: string;
  changes: string[];
}

export interface OfferingInfo {
  description: string;
  source: string;
  settingsConfigurable: boolean;
  /** Instance settings this offering fixes. */
  settings: Record<string, unknown>;
  clientAuthForPasswordGrantSince?: string;
}

export interface Profiles {
  defaults: { release: string; offering: Offering };
  flags: Record<string, FlagInfo>;
  settings: Record<string, SettingInfo>;
  releases?: Record<string, ReleaseInfo>;
  offerings?: Record<Offering, OfferingInfo>;
  limits: Limits;
  retention: Retention;
  /** Where each limit comes from: the rules that state it. */
  limitSources: Record<keyof Limits, { rules: RuleId[] }>;
}

export interface Limits {
  accessTokenLifetime: number;
  deviceCodeLifetime: number;
  deviceInterval: number;
  slowDownIncrement: number;
  authorizationCodeLifetime: number;
  verifierMinLength: number;
  verifierMaxLength: number;
  perPageDefault: number;
  perPageMax: number;
  paginationTotalsMax: number;
  usersKeysetEnforcedAbove: number;
  requestBodyMaxBytes: number;
  gitRequestBodyMaxBytes: number;
  gitPushedMaxBytes: number;
  responseHeaderMaxBytes: number;
  authFailuresMax: number;
  authFailureWindowSeconds: number;
  nameMaxLength: number;
  descriptionMaxLength: number;
  redirectUrisMax: number;
  redirectUriMaxLength: number;
  applicationsPerOwnerMax: number;
  applicationsPageSize: number;
  issueLabelsMax: number;
  createdIssuesPerProjectMax: number;
  createdIssuesMax: number;
  memberRolesMax: number;
}

/** The simulator's housekeeping (spec/profiles.yaml `retention`), seconds of its clock. */
export interface Retention {
  evictionInterval: number;
  expiredGrace: number;
  revokedGrace: number;
  sessionLifetime: number;
}

export interface Fault {
  name: FaultName;
  side: 'oauth' | 'api';
  rules: RuleId[];
  description: string;
}

export interface MachineResult {
  status: number;
  /** OAuth error code of the error body. */
  error?: string;
  /** Schema name in openapi components of a success body. */
  body?: string;
  /** Name of an HTML page answer. */
  page?: string;
}

export interface MachineRow {
  state: string;
  trigger: string;
  condition: string;
  next: string;
  result: MachineResult;
  effects: string[];
  source: string;
  rules: RuleId[];
}

export interface Machine {
  name: string;
  title: string;
  source: string;
  since?: string;
  until?: string;
  flag?: string;
  initial: string;
  states: Record<string, { description: string; terminal?: boolean }>;
  triggers: Record<string, { description: string }>;
  conditions: Record<string, { description: string }>;
  effects: Record<string, { description: string }>;
  rows: MachineRow[];
}

export interface SourceMapEntry {
  section: string;
  row?: string;
  bullet?: string;
  /** A piece of a prose paragraph (a normative sentence outside tables and lists). */
  sentence?: string;
  rules: RuleId[];
}

/** One finding of validateSpec: file relative to the spec folder, 1-based line. */
export interface Problem {
  file: string;
  line: number;
  message: string;
}
