import { useState } from 'preact/hooks';
import type { Group } from '../access.js';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { client } from '../session.js';

/** The group tree, opened at my groups: expand and collapse, and a new subgroup where the caller may write. */
export function GroupsPage() {
  const app = useApp();
  const { words, session } = app;
  const groups = [...session.access.groups.values()];
  const childrenOf = (id: number | null) => groups.filter((group) => group.parent_id === id).sort((a, b) => a.name.localeCompare(b.name));
  const roots = childrenOf(null);
  // Opened at my groups: every group above one where I hold a role today is expanded.
  const [open, setOpen] = useState<Set<number>>(() => {
    const opened = new Set(roots.map((root) => root.id));
    for (const membership of session.memberships) {
      for (let at = session.access.groups.get(membership.group_id); at && at.parent_id !== null; at = session.access.groups.get(at.parent_id)) opened.add(at.parent_id);
    }
    return opened;
  });
  const mine = new Set(session.memberships.map((membership) => membership.group_id));
  const toggle = (id: number) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };

  const node = (group: Group) => {
    const children = childrenOf(group.id);
    const expanded = open.has(group.id);
    return (
      <li key={group.id}>
        <div class="tree-row">
          {children.length > 0 ? (
            <button type="button" class="icon" aria-expanded={expanded} aria-label={`${expanded ? words.collapse : words.expand}: ${group.name}`} onClick={() => toggle(group.id)}>
              {expanded ? '−' : '+'}
            </button>
          ) : (
            <span class="icon-space" />
          )}
          <a href={`#/groups/${group.id}`} aria-current={mine.has(group.id) ? 'true' : undefined} class={mine.has(group.id) ? 'mine' : undefined}>
            {group.name}
          </a>
          {group.kind && <span class="muted"> · {group.kind}</span>}
        </div>
        {expanded && children.length > 0 && <ul>{children.map(node)}</ul>}
      </li>
    );
  };

  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.groups}</h1>
      <ul class="tree">{roots.map(node)}</ul>
      {groups.some((group) => session.access.atLeast(group.id, 'write')) && <NewSubgroup onCreated={(id) => setOpen(new Set([...open, id]))} />}
    </section>
  );
}

function NewSubgroup({ onCreated }: { onCreated: (parentId: number) => void }) {
  const app = useApp();
  const { words, session } = app;
  const writable = [...session.access.groups.values()].filter((group) => session.access.atLeast(group.id, 'write'));
  // Preselected only when there is no choice to make.
  const [parent, setParent] = useState(writable.length === 1 ? writable[0]!.id : 0);
  const [name, setName] = useState('');
  const [kind, setKind] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = answerFor(app, await client.groups.create({ parent_id: parent, name, ...(kind ? { kind } : {}) }), setErrors);
    if (!created) return;
    setName('');
    setKind('');
    await app.refreshAccess();
    app.announce(words.groupCreated(created.data.group.name));
    onCreated(parent);
  };
  return (
    <form class="inline-form" onSubmit={submit} ref={form}>
      <FormErrors errors={errors} shown={['name', 'kind']} />
      <h2>{words.newSubgroup}</h2>
      <label>
        {words.parentGroup}
        <select name="parent_id" required value={parent === 0 ? '' : parent} onChange={(e) => setParent(Number((e.target as HTMLSelectElement).value))}>
          <option value="">{words.chooseGroup}</option>
          {writable.map((group) => (
            <option value={group.id}>{group.name}</option>
          ))}
        </select>
      </label>
      <Field label={words.name} name="name" required value={name} errors={errors.name} onInput={setName} />
      <Field label={words.groupKind} name="kind" value={kind} errors={errors.kind} hint={words.groupKindHint} onInput={setKind} />
      <button type="submit">{words.create}</button>
    </form>
  );
}
