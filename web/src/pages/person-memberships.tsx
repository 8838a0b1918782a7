import { useState } from 'preact/hooks';
import { covers } from '../access.js';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { GroupRolePicker } from '../components/group-role-picker.js';
import { dataOf, useApp } from '../context.js';
import { formatDate, roleTypeLabel } from '../i18n/index.js';
import { client } from '../session.js';
import type { PersonData } from './person.js';

type Membership = NonNullable<PersonData['memberships']>[number];
type Person = PersonData['person'];

/**
 * A person's memberships in every group (active, future, ended): end one on a chosen day, delete a
 * mistaken one, add one in another group. Each action is offered only where the reader leads the
 * group and holds at least the role's permission there (the API checks again).
 */
export function MembershipsCard({ person, memberships, onChanged }: { person: Person; memberships: Membership[]; onChanged: () => void }) {
  const app = useApp();
  const { words, language, session } = app;
  // "End membership" asks for the day (today unless changed), then asks again naming what it does.
  const [ending, setEnding] = useState<{ id: number; on: string } | null>(null);
  const roles = session.roleTypes;
  const roleOf = (key: string) => roles.find((role) => role.key === key);
  const roleLabelOf = (key: string) => {
    const role = roleOf(key);
    return role ? roleTypeLabel(role, language) : key;
  };
  const manages = (m: Membership) => {
    const role = roleOf(m.role_type);
    return role !== undefined && session.access.atLeast(m.group_id, 'write') && covers(session.access.permissionOn(m.group_id), role.permission);
  };
  const day = (value: string) => formatDate(`${value}T12:00:00Z`, language, 'UTC');
  const current = memberships.filter((m) => m.end_on === null || m.end_on >= session.today);
  const ended = memberships.filter((m) => m.end_on !== null && m.end_on < session.today);

  const end = async (m: Membership, on: string) => {
    if (!confirm(words.confirmEndMembership(person.firstname, m.group_name, day(on)))) return;
    if (!dataOf(app, await client.memberships.update(m.id, { end_on: on }))) return;
    setEnding(null);
    app.announce(words.membershipEnded(person.firstname, m.group_name));
    onChanged();
  };
  const remove = async (m: Membership) => {
    if (!confirm(words.confirmDeleteMembership(person.firstname, m.group_name, roleLabelOf(m.role_type)))) return;
    const result = await client.memberships.delete(m.id);
    if (result.response.status !== 204) return void dataOf(app, result);
    app.announce(words.membershipDeleted(person.firstname, m.group_name));
    onChanged();
  };
  const item = (m: Membership) => (
    <li key={m.id}>
      <a href={`#/groups/${m.group_id}`}>{m.group_name}</a> · {roleLabelOf(m.role_type)}
      {m.label && ` (${m.label})`} · {m.start_on > session.today ? words.from : words.since} {day(m.start_on)}
      {m.end_on && ` – ${day(m.end_on)}`}
      {manages(m) && ending?.id !== m.id && (
        <span class="row-actions">
          {m.end_on === null && (
            <button type="button" class="link" onClick={() => setEnding({ id: m.id, on: session.today })}>
              {words.endMembership}
            </button>
          )}
          <button type="button" class="link" onClick={() => void remove(m)}>
            {words.deleteMembership}
          </button>
        </span>
      )}
      {ending !== null && ending.id === m.id && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void end(m, ending.on);
          }}
        >
          <label>
            {words.endOn}
            <input type="date" required min={m.start_on} value={ending.on} onInput={(e) => setEnding({ id: m.id, on: (e.target as HTMLInputElement).value })} />
          </label>
          <div class="actions">
            <button type="submit">{words.endMembership}</button>
            <button type="button" class="link" onClick={() => setEnding(null)}>
              {words.cancel}
            </button>
          </div>
        </form>
      )}
    </li>
  );

  return (
    <section class="card">
      <h2>{words.memberships}</h2>
      {current.length > 0 ? <ul class="list">{current.map(item)}</ul> : <p class="muted">{words.nothing}</p>}
      {ended.length > 0 && (
        <details>
          <summary>{words.endedMemberships(ended.length)}</summary>
          <ul class="list">{ended.map(item)}</ul>
        </details>
      )}
      <AddMembership person={person} onAdded={onChanged} />
    </section>
  );
}

/** A membership in a group the reader leads, with a role no higher than their own there; nothing preselected. */
function AddMembership({ person, onAdded }: { person: Person; onAdded: () => void }) {
  const app = useApp();
  const { words, session } = app;
  const [groupId, setGroupId] = useState(0);
  const [role, setRole] = useState('');
  const [startOn, setStartOn] = useState(session.today);
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  // Offered to whoever leads a group at all.
  if (![...session.access.groups.keys()].some((id) => session.access.atLeast(id, 'write'))) return null;
  const add = async (event: Event) => {
    event.preventDefault();
    const added = answerFor(app, await client.memberships.create({ person_id: person.id, group_id: groupId, role_type: role, start_on: startOn }), setErrors);
    if (!added) return;
    app.announce(words.membershipAdded(person.firstname, session.access.groups.get(groupId)?.name ?? ''));
    setGroupId(0);
    setRole('');
    onAdded();
  };
  return (
    <form class="inline-form" onSubmit={add} ref={form}>
      <h3>{words.addMembership}</h3>
      <FormErrors errors={errors} shown={['start_on']} />
      <GroupRolePicker groupId={groupId} role={role} onChange={(group, chosen) => { setGroupId(group); setRole(chosen); }} />
      <Field label={words.startOn} name="start_on" type="date" required value={startOn} errors={errors.start_on} onInput={setStartOn} />
      <button type="submit">{words.addMembership}</button>
    </form>
  );
}
