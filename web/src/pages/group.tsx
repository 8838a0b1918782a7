import { useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { GroupEvents } from './group-events.js';
import { MembersTable } from './members-table.js';
import { client } from '../session.js';

/** A group: its members table (and adding a person), its events; rename and move. */
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
      {canWrite && (
        <p class="card actions-bar">
          <a class="button-link" href={`#/groups/${id}/people/new`}>
            {words.addPerson}
          </a>
        </p>
      )}
      <MembersTable groupId={id} canWrite={canWrite} />
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
