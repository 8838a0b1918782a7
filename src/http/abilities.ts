/** What a token may be allowed to do. `*` grants everything, present and future. */
export const ABILITIES = [
  '*', 'user:read', 'user:write', 'tokens:read', 'tokens:write',
  // Beyond the original interface: groups, people and role types, then events, the change feed and
  // webhooks; the tenant's settings and messages to members are the endpoints that come with the web app.
  'people:read', 'people:write', 'groups:read', 'groups:write', 'roles:write',
  'events:read', 'events:write', 'changes:read', 'webhooks:write', 'tenant:write', 'messages:write',
] as const;
export type Ability = (typeof ABILITIES)[number];

/** What a token with every ability holds (login tokens; an operator acting through the CLI). */
export const ALL_GRANTED: readonly string[] = ['*'];

export const hasAbility = (granted: readonly string[], ability: string): boolean =>
  granted.includes('*') || granted.includes(ability);

/** The requested abilities that a token with `granted` may not hand on (a token cannot grant what it lacks). */
export function abilitiesBeyond(granted: readonly string[], requested: readonly string[]): string[] {
  if (granted.includes('*')) return [];
  return requested.filter((ability) => ability === '*' || !granted.includes(ability));
}
