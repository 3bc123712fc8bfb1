/**
 * OpenID Connect claims of a user, as the public service documents them for /oauth/userinfo
 * (sub, name, nickname, preferred_username, email, email_verified, website, profile, picture,
 * groups, groups_direct). The id_token carries a subset.
 */
import type { User } from '../store.js';

export function groupsOf(user: User): string[] {
  return [...(user.groups ?? [])];
}

export function userinfoClaims(user: User, base: string): Record<string, unknown> {
  return {
    sub: String(user.id),
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    email: user.email,
    email_verified: true,
    website: '',
    profile: `${base}/${encodeURIComponent(user.username)}`,
    picture: `${base}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    groups: groupsOf(user),
    groups_direct: groupsOf(user),
  };
}

/** The names of the userinfo claims (computed when asked: a module that throws while loading fails no test). */
export function userinfoClaimNames(): string[] {
  // Stryker disable all: only the claim names are read from this placeholder user
  const placeholder: User = {
    id: 0,
    username: '',
    name: '',
    email: '',
    passwordHash: '',
    admin: false,
    twoFactor: false,
    createdAt: 0,
  };
  // Stryker restore all
  return Object.keys(userinfoClaims(placeholder, ''));
}
