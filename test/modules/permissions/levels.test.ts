import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeast, higher, isActiveOn, permissionOn, PERMISSIONS, type Permission, type RoleScope } from '../../../src/modules/permissions/levels.js';

describe('permission levels', () => {
  it('orders none < read < write < admin', () => {
    expect(atLeast('admin', 'write')).toBe(true);
    expect(atLeast('write', 'write')).toBe(true);
    expect(atLeast('read', 'write')).toBe(false);
    expect(atLeast('none', 'read')).toBe(false);
    expect(atLeast('none', 'none')).toBe(true);
  });

  it('takes the higher of two, whatever their order', () => {
    const level = fc.constantFrom(...PERMISSIONS);
    fc.assert(
      fc.property(level, level, (a, b) => {
        const top = higher(a, b);
        expect(top).toBe(higher(b, a));
        expect(atLeast(top, a) && atLeast(top, b)).toBe(true);
        expect(top === a || top === b).toBe(true);
      }),
    );
  });
});

describe('a membership is active on a day', () => {
  it('from start_on through end_on, both included; open-ended without end_on', () => {
    expect(isActiveOn({ startOn: '2026-07-01', endOn: '2026-07-31' }, '2026-07-01')).toBe(true);
    expect(isActiveOn({ startOn: '2026-07-01', endOn: '2026-07-31' }, '2026-07-31')).toBe(true);
    expect(isActiveOn({ startOn: '2026-07-01', endOn: '2026-07-31' }, '2026-08-01')).toBe(false);
    expect(isActiveOn({ startOn: '2026-07-01', endOn: '2026-07-31' }, '2026-06-30')).toBe(false);
    expect(isActiveOn({ startOn: '2026-07-01', endOn: null }, '2099-01-01')).toBe(true);
  });
});

describe('permission on a group', () => {
  /** A random tree of up to 50 groups: group i's parent is one of the groups before it. */
  const tree = fc
    .integer({ min: 1, max: 50 })
    .chain((size) => fc.tuple(...Array.from({ length: size }, (_, i) => (i === 0 ? fc.constant(-1) : fc.integer({ min: 0, max: i - 1 })))));
  const day = fc.integer({ min: 1, max: 28 }).map((d) => `2026-02-${String(d).padStart(2, '0')}`);

  /** The permission rule read plainly (docs/rules/permissions.md): walk up from G, checking each membership's group and dates. */
  const reference = (
    parents: number[],
    group: number,
    roles: { group: number; permission: Permission; scope: RoleScope; start: string; end: string | null }[],
    today: string,
  ): Permission => {
    let best: Permission = 'none';
    for (const role of roles) {
      if (!(role.start <= today && (role.end === null || today <= role.end))) continue;
      let reaches = role.group === group;
      for (let at = parents[group]!; !reaches && role.scope === 'subtree' && at !== -1; at = parents[at]!) reaches = at === role.group;
      if (reaches && PERMISSIONS.indexOf(role.permission) > PERMISSIONS.indexOf(best)) best = role.permission;
    }
    return best;
  };

  it('equals the plain reading of the rule for random trees, memberships, dates and groups', () => {
    fc.assert(
      fc.property(
        tree.chain((parents) =>
          fc.tuple(
            fc.constant(parents),
            fc.array(
              fc.record({
                group: fc.integer({ min: 0, max: parents.length - 1 }),
                permission: fc.constantFrom(...PERMISSIONS),
                scope: fc.constantFrom<RoleScope>('group', 'subtree'),
                start: day,
                end: fc.option(day, { nil: null }),
              }),
              { maxLength: 12 },
            ),
            fc.integer({ min: 0, max: parents.length - 1 }),
            day,
          ),
        ),
        ([parents, roles, group, today]) => {
          // Materialised paths as the groups table keeps them: the ids from the root down, "/0/3/7/".
          const paths: string[] = [];
          parents.forEach((parent, id) => (paths[id] = `${parent === -1 ? '/' : paths[parent]}${id}/`));
          const held = roles.map((role) => ({
            groupPath: paths[role.group]!,
            permission: role.permission,
            scope: role.scope,
            startOn: role.start,
            endOn: role.end,
          }));
          expect(permissionOn(paths[group]!, held, today)).toBe(reference(parents, group, roles, today));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
