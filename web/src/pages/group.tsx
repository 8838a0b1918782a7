import { useEffect, useState } from 'preact/hooks';
import { covers } from '../access.js';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment, roleTypeLabel, zonedToIso } from '../i18n/index.js';
import { go } from '../router.js';
import { GroupEvents } from './group-events.js';
import { client } from '../session.js';

type Person = { id: number; firstname: string; lastname: string };

/** A group: its members (search, filters, paging), adding a person, its events; rename and move. */
export function GroupPage({ id }: { id: number }) {
  const app = useApp();
  const { words, session } = app;
  const group = session.access.groups.get(id);
  if (!group) return <p class="card">{words.nothing}</p>;
  const canWrite = session.access.atLeast(id, 'write');
  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>{group.name}</h1>
        {group.parent_id !== null && (
          <p class="muted">
            <a href={`#/groups/${group.parent_id}`}>{session.access.groups.get(group.parent_id)?.name}</a>
          </p>
        )}
        {canWrite && <RenameAndMove id={id} />}
      </section>
      <Members groupId={id} canWrite={canWrite} />
      <GroupEvents groupId={id} canWrite={canWrite} />
    </>
  );
}

function RenameAndMove({ id }: { id: number }) {
  const app = useApp();
  const { words, session } = app;
  const group = session.access.groups.get(id)!;
  const [name, setName] = useState(group.name);
  const isBelow = (candidate: number): boolean => {
    for (let at = session.access.groups.get(candidate); at; at = at.parent_id === null ? undefined : session.access.groups.get(at.parent_id)) {
      if (at.id === id) return true;
    }
    return false;
  };
  const targets = [...session.access.groups.values()].filter((other) => !isBelow(other.id) && other.id !== group.parent_id && session.access.atLeast(other.id, 'write'));
  // No target is preselected: a move is a choice, never a default.
  const [target, setTarget] = useState(0);
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const rename = async (event: Event) => {
    event.preventDefault();
    if (!answerFor(app, await client.groups.update(id, { name }), setErrors)) return;
    await app.refreshAccess();
    app.announce(words.saved);
  };
  const move = async (event: Event) => {
    event.preventDefault();
    const below = session.access.groups.get(target);
    if (!below || !confirm(words.confirmMove(group.name, below.name))) return;
    if (!dataOf(app, await client.groups.update(id, { parent_id: target }))) return;
    await app.refreshAccess();
    app.announce(words.moved(group.name, below.name));
  };
  return (
    <div class="row-forms">
      <form class="inline-form" onSubmit={rename} ref={form}>
        <FormErrors errors={errors} shown={['name']} />
        <Field label={words.name} name="name" required value={name} errors={errors.name} onInput={setName} />
        <button type="submit">{words.rename}</button>
      </form>
      {group.parent_id !== null && targets.length > 0 && (
        <form class="inline-form" onSubmit={move}>
          <label>
            {words.moveTo}
            <select name="parent_id" required value={target === 0 ? '' : target} onChange={(e) => setTarget(Number((e.target as HTMLSelectElement).value))}>
              <option value="">{words.chooseGroup}</option>
              {targets.map((other) => (
                <option value={other.id}>{other.name}</option>
              ))}
            </select>
          </label>
          <button type="submit">{words.move}</button>
        </form>
      )}
    </div>
  );
}

function Members({ groupId, canWrite }: { groupId: number; canWrite: boolean }) {
  const app = useApp();
  const { words } = app;
  const [q, setQ] = useState('');
  const [below, setBelow] = useState(false);
  const [roleType, setRoleType] = useState('');
  // What the list shows: the filters as last applied (a cursor belongs to exactly those).
  const [applied, setApplied] = useState({ q: '', below: false, roleType: '', round: 0 });
  const [people, setPeople] = useState<Person[]>([]);
  const [next, setNext] = useState<string | null>(null);
  // The role types came with the sign-in (GET /user/access).
  const roles = app.session.roleTypes;
  const apply = () => setApplied({ q, below, roleType, round: applied.round + 1 });

  const load = async (cursor: string | null, shown: Person[]) => {
    const query = {
      group_id: groupId,
      limit: 50,
      ...(applied.below ? { below: true } : {}),
      ...(applied.q ? { q: applied.q } : {}),
      ...(applied.roleType ? { role_type: applied.roleType } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const page = dataOf(app, await client.people.list(query));
    // The list answers CSV too, when asked for it; the app asks for JSON.
    if (!page || typeof page === 'string') return null;
    return { people: [...shown, ...page.data.people], next: page.data.next_cursor };
  };
  const [firstPage] = useLoad(() => load(null, []), [groupId, applied]);
  useEffect(() => {
    if (!firstPage) return;
    setPeople(firstPage.people);
    setNext(firstPage.next);
  }, [firstPage]);
  const more = async () => {
    const page = next ? await load(next, people) : null;
    if (!page) return;
    setPeople(page.people);
    setNext(page.next);
  };
  const grantable = (roles ?? []).filter((role) => covers(app.session.access.permissionOn(groupId), role.permission));

  return (
    <section class="card">
      <h2>{words.members}</h2>
      <form class="filters" role="search" onSubmit={(e) => { e.preventDefault(); apply(); }}>
        <label>
          {words.search}
          <input name="q" type="search" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          {words.role}
          <select name="role_type" value={roleType} onChange={(e) => setRoleType((e.target as HTMLSelectElement).value)}>
            <option value="">{words.anyRole}</option>
            {(roles ?? []).map((role) => (
              <option value={role.key}>{roleTypeLabel(role, app.language)}</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" name="below" checked={below} onChange={(e) => setBelow((e.target as HTMLInputElement).checked)} />
          {words.includeSubgroups}
        </label>
        <button type="submit">{words.search}</button>
      </form>
      {people.length === 0 ? (
        <p class="muted">{words.nothing}</p>
      ) : (
        <ul class="list" aria-label={words.members}>
          {people.map((person) => (
            <li key={person.id}>
              <a href={`#/people/${person.id}`}>
                {person.lastname} {person.firstname}
              </a>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" class="secondary-dark" onClick={() => void more()}>
          {words.more}
        </button>
      )}
      {canWrite && grantable.length > 0 && <AddPerson groupId={groupId} roles={grantable} onAdded={apply} />}
    </section>
  );
}

function AddPerson({ groupId, roles, onAdded }: { groupId: number; roles: { key: string; label: string }[]; onAdded: () => void }) {
  const app = useApp();
  const { words } = app;
  const [firstname, setFirstname] = useState('');
  const [lastname, setLastname] = useState('');
  const [role, setRole] = useState(roles.find((r) => r.key === 'member')?.key ?? roles[0]?.key ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!answerFor(app, await client.people.create({ firstname, lastname, membership: { group_id: groupId, role_type: role } }), setErrors)) return;
    app.announce(words.personAdded(`${firstname} ${lastname}`));
    setFirstname('');
    setLastname('');
    onAdded();
  };
  return (
    <form class="inline-form" onSubmit={submit} ref={form}>
      <h3>{words.addPerson}</h3>
      <FormErrors errors={errors} shown={['firstname', 'lastname']} />
      <Field label={words.firstname} name="firstname" required value={firstname} errors={errors.firstname} onInput={setFirstname} />
      <Field label={words.lastname} name="lastname" required value={lastname} errors={errors.lastname} onInput={setLastname} />
      <label>
        {words.role}
        <select name="role_type" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
          {roles.map((r) => (
            <option value={r.key}>{roleTypeLabel(r, app.language)}</option>
          ))}
        </select>
      </label>
      <button type="submit">{words.addPerson}</button>
    </form>
  );
}
