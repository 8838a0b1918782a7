import { useApp } from '../context.js';

/** Adding a person to a group: every field, a membership, optionally a login. */
export function NewPersonPage(_: { groupId: number }) {
  const { words } = useApp();
  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.membersTable}</h1>
    </section>
  );
}
