import { useApp } from '../context.js';
import { GroupEvents } from './group-events.js';
import { GroupSettings } from './group-settings.js';
import { MembersTable } from './members-table.js';

/** A group: its settings (for its leaders), its members table (and adding a person), its events. */
export function GroupPage({ id }: { id: number }) {
  const { words, session } = useApp();
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
        {group.kind && <p class="muted">{group.kind}</p>}
        {group.description && <p class="description">{group.description}</p>}
        {canWrite && <GroupSettings id={id} />}
      </section>
      {canWrite && (
        <p class="card actions-bar">
          <a class="button-link" href={`#/groups/${id}/people/new`}>
            {words.addPerson}
          </a>{' '}
          <a class="button-link" href={`#/groups/${id}/import`}>
            {words.importPeople}
          </a>{' '}
          <a class="button-link" href={`#/groups/${id}/messages/new`}>
            {words.writeToGroup}
          </a>{' '}
          <a class="button-link" href={`#/groups/${id}/messages`}>
            {words.sentMessages}
          </a>
        </p>
      )}
      <MembersTable groupId={id} canWrite={canWrite} />
      <GroupEvents groupId={id} canWrite={canWrite} />
    </>
  );
}
