import { useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client } from '../session.js';

type State = 'pending' | 'accepted' | 'waitlisted' | 'rejected' | 'cancelled';
/** The changes a manager may make; others may only cancel. */
const NEXT_STATES: Record<State, State[]> = {
  pending: ['accepted', 'rejected', 'waitlisted', 'cancelled'],
  waitlisted: ['accepted', 'cancelled'],
  accepted: ['cancelled'],
  rejected: [],
  cancelled: [],
};
const LIVE: State[] = ['pending', 'accepted', 'waitlisted'];

type Participation = { id: number; person_id: number; state: State; waitlist_position: number | null; person: { id: number; firstname: string; lastname: string } };

/**
 * An event: registration for me and my wards; for its managers the participant list with state
 * changes, the summary and the CSV download.
 */
export function EventPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [round, setRound] = useState(0);
  const [event] = useLoad(async () => dataOf(app, await client.events.get(id))?.data.event ?? null, [id, round]);
  const wards = session.wards;
  // Managers get every participation; anyone else their own and their wards'.
  const [participations] = useLoad(async () => {
    const answer = dataOf(app, await client.participations.list(id, { limit: 200 }));
    return answer && typeof answer !== 'string' ? (answer.data.participations as Participation[]) : null;
  }, [id, round]);
  const [message, setMessage] = useState<string | null>(null);
  if (!event || !participations) return <p aria-busy="true">…</p>;
  const manager = session.access.atLeast(event.group_id, 'write');
  const changed = () => setRound(round + 1);

  const register = async (personId: number) => {
    const created = dataOf(app, await client.participations.register(id, { person_id: personId }));
    if (created) setMessage(`${created.data.participation.person.firstname}: ${words[created.data.participation.state]}`);
    changed();
  };
  const setState = async (participationId: number, state: State) => {
    dataOf(app, await client.participations.update(participationId, { state }));
    // Reloaded after a refusal too: the list shows the state the event really has.
    changed();
  };
  const now = new Date().toISOString();
  const open = (event.registration_opens_at === null || event.registration_opens_at <= now) && (event.registration_closes_at === null || now < event.registration_closes_at);
  const live = (personId: number) => participations.find((p) => p.person_id === personId && LIVE.includes(p.state));
  const family = [{ id: session.personId, label: words.me }, ...(wards ?? []).map((w) => ({ id: w.id, label: `${w.firstname} ${w.lastname}` }))];
  const mine = participations.filter((p) => family.some((member) => member.id === p.person_id));

  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>{event.name}</h1>
        <p class="muted">
          {formatMoment(event.starts_at, language, session.timeZone)} – {formatMoment(event.ends_at, language, session.timeZone)}
          {event.location && ` · ${event.location}`}
        </p>
        {event.description && <p>{event.description}</p>}
        <p data-testid="places">{words.places(event.participants_count, event.capacity)}</p>
        {mine.length > 0 && (
          <ul class="list" aria-label={words.registrations}>
            {mine.map((p) => (
              <li key={p.id}>
                {p.person.firstname} {p.person.lastname} · {words[p.state]}
                {p.waitlist_position !== null && ` (${p.waitlist_position})`}
                {LIVE.includes(p.state) && (
                  <button type="button" class="link" onClick={() => void setState(p.id, 'cancelled')}>
                    {words.cancelRegistration}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        {(open || manager) && (
          <div class="register" role="group" aria-label={words.register}>
            {family
              .filter((member) => !live(member.id))
              .map((member) => (
                <button type="button" key={member.id} onClick={() => void register(member.id)}>
                  {words.register}: {member.label}
                </button>
              ))}
          </div>
        )}
        {message && (
          <p class="success" role="status">
            {message}
          </p>
        )}
      </section>
      {manager && <Participants eventId={id} participations={participations} onSetState={setState} />}
      {manager && <Summary eventId={id} round={round} />}
    </>
  );
}

function Participants({ eventId, participations, onSetState }: { eventId: number; participations: Participation[]; onSetState: (id: number, state: State) => Promise<void> }) {
  const app = useApp();
  const { words } = app;
  const download = async () => {
    const csv = await client.participations.csv(eventId);
    if (csv.data === undefined) return dataOf(app, csv);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([csv.data], { type: 'text/csv' }));
    link.download = `event-${eventId}-participants.csv`;
    link.click();
    // Some browsers start the download after the click returns: keep the file a moment.
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  };
  return (
    <section class="card">
      <h2>{words.participants}</h2>
      <table class="table">
        <thead>
          <tr>
            <th scope="col">{words.name}</th>
            <th scope="col">{words.state}</th>
          </tr>
        </thead>
        <tbody>
          {participations.map((p) => (
            <tr key={p.id} data-person={p.person_id}>
              <td>
                <a href={`#/people/${p.person_id}`}>
                  {p.person.firstname} {p.person.lastname}
                </a>
                {p.waitlist_position !== null && <span class="muted"> ({p.waitlist_position})</span>}
              </td>
              <td>
                <select
                  aria-label={`${words.state}: ${p.person.firstname} ${p.person.lastname}`}
                  value={p.state}
                  disabled={NEXT_STATES[p.state].length === 0}
                  onChange={(e) => void onSetState(p.id, (e.target as HTMLSelectElement).value as State)}
                >
                  {[p.state, ...NEXT_STATES[p.state]].map((state) => (
                    <option value={state}>{words[state]}</option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" class="secondary-dark" onClick={() => void download()}>
        {words.downloadCsv}
      </button>
    </section>
  );
}

function Summary({ eventId, round }: { eventId: number; round: number }) {
  const app = useApp();
  const { words } = app;
  const [summary] = useLoad(async () => dataOf(app, await client.events.summary(eventId))?.data.summary ?? null, [eventId, round]);
  if (!summary) return null;
  return (
    <section class="card">
      <h2>{words.summary}</h2>
      <dl class="facts" data-testid="summary">
        <dt>{words.accepted}</dt>
        <dd>{summary.accepted}</dd>
        <dt>{words.waitlisted}</dt>
        <dd>{summary.waitlisted}</dd>
        <dt>{words.pending}</dt>
        <dd>{summary.pending}</dd>
        <dt>{words.cancelled}</dt>
        <dd>{summary.cancelled}</dd>
        <dt>{words.vegetariansCount}</dt>
        <dd>{summary.vegetarians}</dd>
        <dt>{words.nonSwimmers}</dt>
        <dd>{summary.non_swimmers.length === 0 ? '0' : summary.non_swimmers.map((p) => `${p.firstname} ${p.lastname}`).join(', ')}</dd>
      </dl>
    </section>
  );
}
