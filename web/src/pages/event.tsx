import { useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n.js';
import { client } from '../session.js';

const STATES = ['pending', 'accepted', 'waitlisted', 'rejected', 'cancelled'] as const;
type State = (typeof STATES)[number];

/**
 * An event: registration for me and my wards; for its managers the participant list with state
 * changes, the summary and the CSV download.
 */
export function EventPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [event, reloadEvent] = useLoad(async () => dataOf(app, await client.events.get(id))?.data.event ?? null, [id]);
  const [wards] = useLoad(async () => dataOf(app, await client.people.wards())?.data.wards ?? null, []);
  const [message, setMessage] = useState<string | null>(null);
  const manager = event !== null && session.access.atLeast(event.group_id, 'write');
  const [round, setRound] = useState(0);
  const changed = () => {
    reloadEvent();
    setRound(round + 1);
  };
  if (!event) return <p aria-busy="true">…</p>;

  const register = async (personId: number) => {
    const created = dataOf(app, await client.participations.register(id, { person_id: personId }));
    if (!created) return;
    setMessage(`${created.data.participation.person.firstname}: ${words[created.data.participation.state]}`);
    changed();
  };
  const candidates = [{ id: session.personId, label: words.me }, ...(wards ?? []).map((w) => ({ id: w.id, label: `${w.firstname} ${w.lastname}` }))];

  return (
    <>
      <section class="card">
        <h1>{event.name}</h1>
        <p class="muted">
          {formatMoment(event.starts_at, language, session.timeZone)} – {formatMoment(event.ends_at, language, session.timeZone)}
          {event.location && ` · ${event.location}`}
        </p>
        {event.description && <p>{event.description}</p>}
        <p data-testid="places">{words.places(event.participants_count, event.capacity)}</p>
        <div class="register" role="group" aria-label={words.register}>
          {candidates.map((candidate) => (
            <button type="button" key={candidate.id} onClick={() => void register(candidate.id)}>
              {words.register}: {candidate.label}
            </button>
          ))}
        </div>
        {message && (
          <p class="success" role="status">
            {message}
          </p>
        )}
      </section>
      {manager && <Participants eventId={id} round={round} onChanged={changed} />}
      {manager && <Summary eventId={id} round={round} />}
    </>
  );
}

function Participants({ eventId, round, onChanged }: { eventId: number; round: number; onChanged: () => void }) {
  const app = useApp();
  const { words } = app;
  const [list] = useLoad(async () => {
    const answer = dataOf(app, await client.participations.list(eventId, { limit: 200 }));
    return answer && typeof answer !== 'string' ? answer.data.participations : null;
  }, [eventId, round]);
  const setState = async (participationId: number, state: State) => {
    if (dataOf(app, await client.participations.update(participationId, { state }))) onChanged();
  };
  const download = async () => {
    const csv = await client.participations.csv(eventId);
    if (csv.data === undefined) return;
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([csv.data], { type: 'text/csv' }));
    link.download = `event-${eventId}-participants.csv`;
    link.click();
    URL.revokeObjectURL(link.href);
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
          {(list ?? []).map((p) => (
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
                  onChange={(e) => void setState(p.id, (e.target as HTMLSelectElement).value as State)}
                >
                  {STATES.map((state) => (
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
