/**
 * The target config's types, beside its schema (spec/target-config.schema.json): the suites read
 * a target config, the simulator writes one (GET /-/simulator/config, `simulate --write-config`),
 * so the types live below both. See DESIGN.md.
 */
import type { Offering } from './types.js';

/** The three seeded applications a target config names; the simulator seeds one of each. */
export const APP_ROLES = ['confidential', 'public', 'limited'] as const;
export type AppRole = (typeof APP_ROLES)[number];

export type DriverKind = 'simulator' | 'form' | 'browser' | 'manual';

/**
 * Who plays the user and how. Field names and selectors describe the target's sign-in and consent
 * pages; without them the form and browser drivers use generic defaults (suites/drivers/).
 */
export interface DriverConfig {
  kind: DriverKind;
  signInPath?: string;
  loginField?: string;
  passwordField?: string;
  approveSelector?: string;
  denySelector?: string;
  /** Browser driver: the control that submits the sign-in (default: Enter in a form, else a "Sign in" button). */
  signInSelector?: string;
  /** Browser driver: a control that leads on after sign-in or consent (a "Continue" button or link). */
  continueSelector?: string;
}

export interface AppConfig {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  scopes: string[];
}

/** Target config (YAML or JSON), see DESIGN.md; validated against spec/target-config.schema.json. */
export interface TargetConfig {
  baseUrl: string;
  /**
   * Other origins of the same provider (a separate sign-in host, the host discovery names for an
   * endpoint: runner/endpoints.ts) the harness may send requests and credentials to; by default
   * only baseUrl's. Only the user's config names them, never the target.
   */
  trustedOrigins?: string[];
  issuer?: string;
  release?: string;
  offering?: Offering;
  features?: Record<string, boolean>;
  driver?: DriverConfig;
  user?: { username: string; password: string };
  personalAccessToken?: string;
  applications?: Partial<Record<AppRole, AppConfig>>;
  /** Existing data the checks may read on a live target. */
  fixtures?: Fixtures;
}

export interface Fixtures {
  /** Namespaced path of a readable project with issues, jobs, a repository tree and tags. */
  project?: string;
  /** A project whose old path answers with a redirect to its new one (release >= 16.7). */
  movedProject?: { oldPath: string; newPath: string };
  /** A namespaced path whose issues collection holds more than 10,000 records. */
  largeProject?: string;
  /** A group path (audit events). */
  group?: string;
  /** A registry repository id of `project` with tags. */
  registryRepositoryId?: number;
  /** A package id of `project` with pipelines. */
  packageId?: number;
  /** A branch of `project` whose name contains `/` (encoding checks). */
  slashedBranch?: string;
  /** A tag of `project` whose name contains `/` (encoding checks). */
  slashedTag?: string;
}
