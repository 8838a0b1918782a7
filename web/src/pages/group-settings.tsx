import { useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { translateApiMessage } from '../i18n/api-messages.js';
import { client, troubleOf } from '../session.js';

/**
 * A group's settings for its leaders: name, kind and description; a move (a picker of the groups
 * the leader may move it to, nothing preselected); and, for whoever leads the group above, delete,
 * showing the API's reason when the group cannot go yet.
 */
export function GroupSettings({ id }: { id: number }) {
  const app = useApp();
  const { words, session } = app;
  const group = session.access.groups.get(id)!;
  const mayDelete = group.parent_id !== null && session.access.atLeast(group.parent_id, 'write');
  return (
    <details class="settings">
      <summary>{words.groupSettings}</summary>
      <EditGroup id={id} />
      <MoveGroup id={id} />
      {mayDelete && <DeleteGroup id={id} />}
    </details>
  );
}

function EditGroup({ id }: { id: number }) {
  const app = useApp();
  const { words, session } = app;
  const group = session.access.groups.get(id)!;
  const [fields, setFields] = useState({ name: group.name, kind: group.kind, description: group.description ?? '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const save = async (event: Event) => {
    event.preventDefault();
    const changes = {
      ...(fields.name !== group.name ? { name: fields.name } : {}),
      ...(fields.kind !== group.kind ? { kind: fields.kind } : {}),
      ...(fields.description !== (group.description ?? '') ? { description: fields.description === '' ? null : fields.description } : {}),
    };
    if (Object.keys(changes).length > 0 && !answerFor(app, await client.groups.update(id, changes), setErrors)) return;
    await app.refreshAccess();
    app.announce(words.groupSaved(fields.name));
  };
  return (
    <form class="inline-form" onSubmit={save} ref={form}>
      <FormErrors errors={errors} shown={['name', 'kind', 'description']} />
      <Field label={words.name} name="name" required value={fields.name} errors={errors.name} onInput={(name) => setFields({ ...fields, name })} />
      <Field label={words.groupKind} name="kind" value={fields.kind} errors={errors.kind} hint={words.groupKindHint} onInput={(kind) => setFields({ ...fields, kind })} />
      <label>
        {words.groupDescription}
        <textarea name="description" rows={3} value={fields.description} onInput={(e) => setFields({ ...fields, description: (e.target as HTMLTextAreaElement).value })} />
      </label>
      <button type="submit">{words.save}</button>
    </form>
  );
}

function MoveGroup({ id }: { id: number }) {
  const app = useApp();
  const { words, session } = app;
  const group = session.access.groups.get(id)!;
  const isBelow = (candidate: number): boolean => {
    for (let at = session.access.groups.get(candidate); at; at = at.parent_id === null ? undefined : session.access.groups.get(at.parent_id)) {
      if (at.id === id) return true;
    }
    return false;
  };
  // Neither the current parent nor the group's own subtree; only where the leader may write.
  const targets = [...session.access.groups.values()].filter((other) => !isBelow(other.id) && other.id !== group.parent_id && session.access.atLeast(other.id, 'write'));
  // No target is preselected: a move is a choice, never a default.
  const [target, setTarget] = useState(0);
  if (group.parent_id === null || targets.length === 0) return null;
  const move = async (event: Event) => {
    event.preventDefault();
    const below = session.access.groups.get(target);
    if (!below || !confirm(words.confirmMove(group.name, below.name))) return;
    if (!dataOf(app, await client.groups.update(id, { parent_id: target }))) return;
    await app.refreshAccess();
    app.announce(words.moved(group.name, below.name));
  };
  return (
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
  );
}

function DeleteGroup({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const group = session.access.groups.get(id)!;
  const [refusal, setRefusal] = useState<string | null>(null);
  const remove = async () => {
    if (!confirm(words.confirmDeleteGroup(group.name))) return;
    setRefusal(null);
    const result = await client.groups.delete(id);
    if (result.response.ok) {
      await app.refreshAccess();
      return app.announce(words.groupDeleted(group.name), `/groups/${group.parent_id}`);
    }
    const trouble = troubleOf(result.response, result.error);
    if (trouble.kind !== 'refused') return app.report(trouble);
    // The API says what keeps the group (subgroups, active members, coming events), in the reader's language.
    setRefusal(words.groupNotDeleted(translateApiMessage(trouble.message, language)));
  };
  return (
    <div class="danger-zone">
      <p class="muted">{words.deleteGroupHint}</p>
      {refusal && (
        <p class="error" role="alert">
          {refusal}
        </p>
      )}
      <button type="button" class="danger" onClick={() => void remove()}>
        {words.deleteGroup}
      </button>
    </div>
  );
}
