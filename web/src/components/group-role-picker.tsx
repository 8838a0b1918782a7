import { covers } from '../access.js';
import { useApp } from '../context.js';
import { roleTypeLabel } from '../i18n/index.js';

/**
 * A group the reader leads and a role no higher than their own there, nothing preselected: the
 * role list follows the group chosen (a person's page adding a membership, the members table adding
 * the chosen to a group).
 */
export function GroupRolePicker({ groupId, role, onChange }: { groupId: number; role: string; onChange: (groupId: number, role: string) => void }) {
  const { words, language, session } = useApp();
  const groups = [...session.access.groups.values()].filter((group) => session.access.atLeast(group.id, 'write')).sort((a, b) => a.name.localeCompare(b.name, language));
  const grantable = groupId === 0 ? [] : session.roleTypes.filter((r) => covers(session.access.permissionOn(groupId), r.permission));
  return (
    <>
      <label>
        {words.group}
        <select name="group_id" required value={groupId === 0 ? '' : groupId} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value), '')}>
          <option value="">{words.chooseGroup}</option>
          {groups.map((group) => (
            <option value={group.id}>{group.name}</option>
          ))}
        </select>
      </label>
      <label>
        {words.role}
        <select name="role_type" required value={role} disabled={groupId === 0} onChange={(e) => onChange(groupId, (e.target as HTMLSelectElement).value)}>
          <option value="">{words.chooseRole}</option>
          {grantable.map((r) => (
            <option value={r.key}>{roleTypeLabel(r, language)}</option>
          ))}
        </select>
      </label>
    </>
  );
}
