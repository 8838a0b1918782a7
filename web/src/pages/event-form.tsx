import { useApp } from '../context.js';

/** Creating an event in a group, editing one, or copying one as a new event (the form filled from it). */
export function EventFormPage(_: { groupId?: number; eventId?: number; copyOf?: number }) {
  const { words } = useApp();
  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.eventFormTitleNew}</h1>
    </section>
  );
}
