import { useState } from 'preact/hooks';
import { LinkedText } from '../components/linked-text.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client } from '../session.js';
import { Approvals, Attendance, RegisterMembers } from './event-bulk.js';

export type State = 'pending' | 'accepted' | 'waitlisted' | 'rejected' | 'cancelled';
/** The changes a manager may make; others may only cancel. */
const NEXT_STATES: Record<State, State[]> = {
  pending: ['accepted', 'rejected', 'waitlisted', 'cancelled'],
  waitlisted: ['accepted', 'cancelled'],
  accepted: ['cancelled'],
  rejected: [],
  cancelled: [],
};
const LIVE: State[] = ['pending', 'accepted', 'waitlisted'];

type Guardian = { id: number; firstname: string; lastname: string; phonenumber: string | null; phonenumber_mobile: string | null };

export type Participation = {
  id: number;
  person_id: number;
  role: 'participant' | 'helper' | 'leader';
  state: State;
  waitlist_position: number | null;
  attended: boolean | null;
  notes?: string | null;
  person: { id: number; firstname: string; lastname: string; is_vegetarian?: boolean; can_swimm?: boolean; guardians?: Guardian[] };
};

/**
 * An event: what it is, the family's registrations (states, waiting-list places, cancel) and who of
 * them may register; for its managers the participant list with state changes, the summary,
 * the XLSX and CSV downloads, and the ways to edit, copy and print it. Two requests: the event,
 * and the family's agenda at its time (or, for managers, the participant list).
 */
export function EventPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [round, setRound] = useState(0);
  const [event] = useLoad(async () => dataOf(app, await client.events.get(id))?.data.event ?? null, [id, round]);
  const manager = event ? session.access.atLeast(event.group_id, 'write') : false;
  // Managers get every participation; anyone else reads the family's part from the agenda.
  // Managers: every participation with each person's details, and the event's numbers, in one request.
  const [managed] = useLoad(async () => {
    if (!event || !manager) return { participations: [] as Participation[], summary: null };
    const answer = dataOf(app, await client.participations.list(id, { limit: 200, include: 'details' }));
    // JSON, not the CSV the same list also answers.
    if (!answer || typeof answer === 'string') return null;
    const all = answer.data.participations as Participation[];
    // A camp beyond 200 registrations reads its further pages too: the list is never cut short.
    for (let cursor = answer.data.next_cursor; cursor; ) {
      const next = dataOf(app, await client.participations.list(id, { limit: 200, include: 'details', cursor }));
      if (!next || typeof next === 'string') return null;
      all.push(...(next.data.participations as Participation[]));
      cursor = next.data.next_cursor;
    }
    return { participations: all, summary: answer.data.summary ?? null };
  }, [event === null, manager, round]);
  const participations = managed?.participations ?? null;
  const [family] = useLoad(async () => {
    if (!event || manager) return null;
    const answer = dataOf(app, await client.agenda({ from: event.starts_at, to: event.starts_at, limit: 50 }));
    if (!answer) return null;
    const entry = answer.data.events.find((item) => item.event.id === id);
    return { participations: entry?.family ?? [], mayRegister: entry?.may_register ?? [] };
  }, [event === null, manager, round]);
  if (!event || !participations || (!manager && !family)) return <p aria-busy="true">…</p>;
  const changed = () => setRound(round + 1);
  const nameOf = (personId: number) => {
    if (personId === session.personId) return `${session.me.firstname} ${session.me.lastname}`;
    const ward = session.wards.find((w) => w.id === personId);
    return ward ? `${ward.firstname} ${ward.lastname}` : (participations.find((p) => p.person_id === personId)?.person.firstname ?? String(personId));
  };
  const household = [session.personId, ...session.wards.map((w) => w.id)];
  // The family's registrations: from the agenda, or (managers) from the full list.
  const mine: FamilyEntry[] = manager
    ? participations
        .filter((p) => household.includes(p.person_id) && p.state !== 'cancelled')
        .map((p) => ({ person_id: p.person_id, participation_id: p.id, state: p.state, waitlist_position: p.waitlist_position }))
    : family!.participations;
  // Managers may register anyone at any time; the family as the agenda says (who may, while open).
  const mayRegister = manager ? household.filter((personId) => !mine.some((m) => m.person_id === personId && LIVE.includes(m.state))) : family!.mayRegister;

  const setState = async (participationId: number, state: State) => {
    // A cancellation is final: asked first, naming whom. Approving or rejecting is a decision, not a loss.
    const who = participations.find((p) => p.id === participationId);
    if (state === 'cancelled' && who && !confirm(words.confirmCancelRegistration(`${who.person.firstname} ${who.person.lastname}`, event.name))) return;
    dataOf(app, await client.participations.update(participationId, { state }));
    // Reloaded after a refusal too: the list shows the state the event really has.
    changed();
  };
  const cancel = async (entry: FamilyEntry) => {
    if (!confirm(words.confirmCancelRegistration(nameOf(entry.person_id), event.name))) return;
    const result = await client.participations.update(entry.participation_id, { state: 'cancelled' });
    if (result.data) app.announce(words.registrationCancelled(nameOf(entry.person_id)));
    else dataOf(app, result);
    changed();
  };

  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>{event.name}</h1>
        <p class="muted">
          {formatMoment(event.starts_at, language, session.timeZone)} – {formatMoment(event.ends_at, language, session.timeZone)}
          {event.location && ` · ${event.location}`}
        </p>
        {/* A plain link: the browser sends the session cookie with a GET and saves the file the API names. */}
        <p class="downloads">
          <a href={`/api/events/${id}.ics`} download>
            {words.downloadIcs}
          </a>
        </p>
        {event.description && (
          <p class="linked-text">
            <LinkedText text={event.description} />
          </p>
        )}
        <p data-testid="places">{words.places(event.participants_count, event.capacity)}</p>
        {manager && (
          <div class="actions">
            <a class="button-link" href={`#/events/${id}/edit`}>
              {words.editEvent}
            </a>
            <a class="button-link" href={`#/events/${id}/copy`}>
              {words.copyEvent}
            </a>
            <a class="button-link" href={`#/events/${id}/print`}>
              {words.printView}
            </a>
            <a class="button-link" href={`#/events/${id}/messages/new`}>
              {words.writeToParticipants}
            </a>
            <a class="button-link" href={`#/events/${id}/messages`}>
              {words.sentMessages}
            </a>
          </div>
        )}
        {mine.length > 0 && (
          <ul class="list" aria-label={words.registrations}>
            {mine.map((entry) => (
              <li key={entry.participation_id}>
                {nameOf(entry.person_id)} · {words[entry.state]}
                {entry.waitlist_position !== null && ` (${words.placeOnList(entry.waitlist_position)})`}
                {LIVE.includes(entry.state) && (
                  <button type="button" class="link" onClick={() => void cancel(entry)}>
                    {words.cancelRegistrationOf(nameOf(entry.person_id))}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        {mayRegister.length > 0 && (
          <div class="register" role="group" aria-label={words.register}>
            {mayRegister.map((personId) => (
              <a class="button-link" key={personId} href={`#/events/${id}/register/${personId}`}>
                {words.registerNamed(nameOf(personId))}
              </a>
            ))}
          </div>
        )}
      </section>
      {manager && <Participants eventId={id} participations={participations} onSetState={setState} />}
      {manager && <RegisterMembers eventId={id} groupId={event.group_id} participations={participations} onChanged={changed} />}
      {manager && <Approvals eventId={id} participations={participations} onChanged={changed} />}
      {manager && <Attendance eventId={id} participations={participations} onChanged={changed} />}
      {manager && managed?.summary && <Summary summary={managed.summary} />}
      {manager && <CallOff event={event} participations={participations} onRefused={changed} />}
    </>
  );
}

/** A participation of the caller or a ward, as the agenda gives it. */
interface FamilyEntry {
  person_id: number;
  participation_id: number;
  state: State;
  waitlist_position: number | null;
}

function Participants({ eventId, participations, onSetState }: { eventId: number; participations: Participation[]; onSetState: (id: number, state: State) => Promise<void> }) {
  const app = useApp();
  const { words, language } = app;
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
  const [shownState, setShownState] = useState<State | ''>('');
  const [byName, setByName] = useState(false);
  const roleWord = { participant: words.roleParticipant, helper: words.roleHelper, leader: words.roleOfLeader };
  const yesNo = (value: boolean | null | undefined) => (value === undefined || value === null ? '' : value ? words.yes : words.no);
  // The service's order (by state, the waiting list by place, then name) or by name alone; a state filter on top.
  const shown = participations
    .filter((p) => shownState === '' || p.state === shownState)
    .sort((a, b) => (byName ? `${a.person.lastname} ${a.person.firstname}`.localeCompare(`${b.person.lastname} ${b.person.firstname}`, language) : 0));
  const numbers = (g: Guardian) => [g.phonenumber_mobile, g.phonenumber].filter(Boolean).join(', ');
  return (
    <section class="card">
      <h2 id="participants-title">{words.participants}</h2>
      <div class="filters">
        <label>
          {words.state}
          <select name="state_filter" value={shownState} onChange={(e) => setShownState((e.target as HTMLSelectElement).value as State | '')}>
            <option value="">{words.allStates}</option>
            {(['accepted', 'pending', 'waitlisted', 'rejected', 'cancelled'] as const).map((state) => (
              <option value={state}>{words[state]}</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" name="by_name" checked={byName} onChange={(e) => setByName((e.target as HTMLInputElement).checked)} />
          {words.sortByName}
        </label>
      </div>
      <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="participants-title">
      <table class="table">
        <thead>
          <tr>
            <th scope="col">{words.name}</th>
            <th scope="col">{words.asRole}</th>
            <th scope="col">{words.state}</th>
            <th scope="col">{words.notes}</th>
            <th scope="col">{words.vegetarian}</th>
            <th scope="col">{words.swimmer}</th>
            <th scope="col">{words.attendance}</th>
            <th scope="col">{words.guardiansNumbers}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((p) => (
            <tr key={p.id} data-person={p.person_id}>
              <td>
                <a href={`#/people/${p.person_id}`}>
                  {p.person.firstname} {p.person.lastname}
                </a>
                {p.waitlist_position !== null && <span class="muted"> ({p.waitlist_position})</span>}
              </td>
              <td>{roleWord[p.role]}</td>
              <td>
                <select
                  aria-label={`${words.state}: ${p.person.firstname} ${p.person.lastname}`}
                  value={p.state}
                  disabled={NEXT_STATES[p.state].length === 0}
                  onChange={(e) => {
                    // The list shows the state the event has until the change is made (a question may stop it).
                    const select = e.currentTarget;
                    const chosen = select.value as State;
                    select.value = p.state;
                    void onSetState(p.id, chosen);
                  }}
                >
                  {[p.state, ...NEXT_STATES[p.state]].map((state) => (
                    <option value={state}>{words[state]}</option>
                  ))}
                </select>
              </td>
              <td class="notes">{p.notes ?? ''}</td>
              <td>{yesNo(p.person.is_vegetarian)}</td>
              <td>{yesNo(p.person.can_swimm)}</td>
              <td>{yesNo(p.attended)}</td>
              <td class="phone">
                {(p.person.guardians ?? []).map((g) => (
                  <div key={g.id}>
                    {g.firstname} {g.lastname}
                    {numbers(g) && <span class="muted"> {numbers(g)}</span>}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      <div class="actions">
        {/* A plain link: the browser sends the session cookie with a GET and saves the file it answers. */}
        <a class="button-link" href={`/api/events/${eventId}/participations?format=xlsx`} download>
          {words.downloadXlsx}
        </a>
        <button type="button" class="secondary-dark" onClick={() => void download()}>
          {words.downloadCsv}
        </button>
      </div>
    </section>
  );
}

type ParticipantList = Exclude<NonNullable<Awaited<ReturnType<typeof client.participations.list>>['data']>, string>;
type EventSummary = NonNullable<ParticipantList['data']['summary']>;

/** The kitchen's and the lifeguard's numbers (they came with the participant list). */
function Summary({ summary }: { summary: EventSummary }) {
  const { words } = useApp();
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

/** The states a call-off cancels, in its order: the queue first, so no cancellation promotes someone about to be cancelled too. */
const CALL_OFF_ORDER: State[] = ['waitlisted', 'pending', 'accepted'];

/**
 * "Call off": every live registration cancelled (one request per 200, all or nothing each), then
 * the event deleted; asked first, naming the event and how many registrations it ends.
 */
function CallOff({ event, participations, onRefused }: { event: { id: number; name: string; group_id: number }; participations: Participation[]; onRefused: () => void }) {
  const app = useApp();
  const { words } = app;
  const [busy, setBusy] = useState(false);
  const live = CALL_OFF_ORDER.flatMap((state) => participations.filter((p) => p.state === state));
  const callOff = async () => {
    if (!confirm(words.confirmCallOff(event.name, live.length))) return;
    setBusy(true);
    try {
      for (let start = 0; start < live.length; start += 200) {
        const chunk = live.slice(start, start + 200).map((p) => ({ id: p.id, state: 'cancelled' as const }));
        if (!dataOf(app, await client.participations.updateMany(event.id, { participations: chunk }))) return onRefused();
      }
      const deleted = await client.events.delete(event.id);
      if (!deleted.response.ok) {
        dataOf(app, deleted);
        return onRefused();
      }
      app.announce(words.calledOff(event.name), `/groups/${event.group_id}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card">
      <h2>{words.callOff}</h2>
      <p class="muted">{words.callOffHint}</p>
      <button type="button" class="danger" disabled={busy} onClick={() => void callOff()}>
        {words.callOff}
      </button>
    </section>
  );
}
