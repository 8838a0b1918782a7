import { useState } from 'preact/hooks';
import { validationErrors } from '../components/field.js';
import { useApp } from '../context.js';
import { namedRefusals, Refusals } from '../components/refusals.js';
import { client, troubleOf } from '../session.js';
import type { Participation } from './event.js';

// A manager's work on many registrations at once, each one request (the bulk form): approvals of
// the pending, and the attendance of the day as a checklist for a phone.

type Change = { id: number; state?: 'accepted' | 'rejected'; attended?: boolean };
type Candidate = { id: number; firstname: string; lastname: string };

/** Sends the changes as one request; a refusal names each refused registration with the API's reason. */
function useBulkChange(eventId: number, participations: Participation[], onChanged: () => void) {
  const app = useApp();
  const [refusals, setRefusals] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const send = async (changes: Change[], done: string) => {
    setBusy(true);
    setRefusals([]);
    try {
      const result = await client.participations.updateMany(eventId, { participations: changes });
      if (result.data) {
        app.announce(done);
        return onChanged();
      }
      const errors = validationErrors(result.response, result.error);
      if (!errors) return app.report(troubleOf(result.response, result.error));
      setRefusals(namedRefusals(errors, (i) => participations.find((p) => p.id === changes[i]?.id)?.person, app.language));
    } finally {
      setBusy(false);
    }
  };
  return { send, refusals, busy };
}

/** The pending registrations, several approved or rejected at once (a decision, not a loss: no question). */
export function Approvals({ eventId, participations, onChanged }: { eventId: number; participations: Participation[]; onChanged: () => void }) {
  const { words } = useApp();
  const pending = participations.filter((p) => p.state === 'pending');
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const { send, refusals, busy } = useBulkChange(eventId, participations, () => {
    setChosen(new Set());
    onChanged();
  });
  if (pending.length === 0) return null;
  const decide = (state: 'accepted' | 'rejected') =>
    send(
      pending.filter((p) => chosen.has(p.id)).map((p) => ({ id: p.id, state })),
      state === 'accepted' ? words.approvedCount(chosen.size) : words.rejectedCount(chosen.size),
    );
  return (
    <section class="card" aria-labelledby="approvals-title">
      <h2 id="approvals-title">{words.approvals}</h2>
      <fieldset class="checklist">
        <legend class="visually-hidden">{words.approvals}</legend>
        {pending.map((p) => (
          <label class="check" key={p.id}>
            <input
              type="checkbox"
              checked={chosen.has(p.id)}
              onChange={(e) => {
                const next = new Set(chosen);
                if ((e.target as HTMLInputElement).checked) next.add(p.id);
                else next.delete(p.id);
                setChosen(next);
              }}
            />
            {p.person.firstname} {p.person.lastname}
          </label>
        ))}
      </fieldset>
      <Refusals refusals={refusals} />
      <div class="actions">
        <button type="button" disabled={busy || chosen.size === 0} onClick={() => void decide('accepted')}>
          {words.approveChosen}
        </button>
        <button type="button" class="secondary-dark" disabled={busy || chosen.size === 0} onClick={() => void decide('rejected')}>
          {words.rejectChosen}
        </button>
      </div>
    </section>
  );
}

/** The attendance of the accepted, ticked on a phone and saved in one request (only what changed). */
export function Attendance({ eventId, participations, onChanged }: { eventId: number; participations: Participation[]; onChanged: () => void }) {
  const { words } = useApp();
  const accepted = participations.filter((p) => p.state === 'accepted');
  const [ticked, setTicked] = useState<Map<number, boolean>>(new Map());
  const { send, refusals, busy } = useBulkChange(eventId, participations, () => {
    setTicked(new Map());
    onChanged();
  });
  if (accepted.length === 0) return null;
  const present = (p: Participation) => ticked.get(p.id) ?? p.attended === true;
  const changes = accepted.filter((p) => present(p) !== (p.attended === true)).map((p) => ({ id: p.id, attended: present(p) }));
  return (
    <section class="card" aria-labelledby="attendance-title">
      <h2 id="attendance-title">{words.attendance}</h2>
      <fieldset class="checklist">
        <legend class="visually-hidden">{words.attendance}</legend>
        {accepted.map((p) => (
          <label class="check" key={p.id}>
            <input type="checkbox" checked={present(p)} onChange={(e) => setTicked(new Map(ticked).set(p.id, (e.target as HTMLInputElement).checked))} />
            {p.person.firstname} {p.person.lastname}
          </label>
        ))}
      </fieldset>
      <p class="muted">{words.attendedCount(accepted.filter(present).length, accepted.length)}</p>
      <Refusals refusals={refusals} />
      <button type="button" disabled={busy || changes.length === 0} onClick={() => void send(changes, words.attendanceSaved)}>
        {words.saveAttendance}
      </button>
    </section>
  );
}

type Role = 'participant' | 'helper' | 'leader';

/**
 * Registering several members at once (one request): the members of the event's group and the
 * groups below it, found by name, ticked, in one role (participant unless chosen otherwise).
 * Those registered already are left out; each is placed as a single registration would be.
 */
export function RegisterMembers({ eventId, groupId, participations, onChanged }: { eventId: number; groupId: number; participations: Participation[]; onChanged: () => void }) {
  const app = useApp();
  const { words } = app;
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [found, setFound] = useState<Candidate[] | null>(null);
  const [chosen, setChosen] = useState<Map<number, Candidate>>(new Map());
  const [role, setRole] = useState<Role>('participant');
  const [refusals, setRefusals] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const live = new Set(participations.filter((p) => p.state === 'pending' || p.state === 'accepted' || p.state === 'waitlisted').map((p) => p.person_id));

  const search = async () => {
    const answer = await client.people.list({ group_id: groupId, below: true, limit: 50, ...(text.trim() ? { q: text.trim() } : {}) });
    // JSON, not the CSV the same list also answers.
    if (answer.data && typeof answer.data !== 'string') setFound(answer.data.data.people.filter((person) => !live.has(person.id)));
    else app.report(troubleOf(answer.response, answer.error));
  };
  const register = async () => {
    const people = [...chosen.values()];
    setBusy(true);
    setRefusals([]);
    try {
      const result = await client.participations.registerMany(eventId, { person_ids: people.map((person) => person.id), role });
      if (result.data) {
        app.announce(words.registeredCount(people.length));
        setChosen(new Map());
        setFound(null);
        return onChanged();
      }
      const errors = validationErrors(result.response, result.error);
      if (!errors) return app.report(troubleOf(result.response, result.error));
      setRefusals(namedRefusals(errors, (i) => people[i], app.language));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="card" onToggle={(event) => {
      const nowOpen = (event.currentTarget as HTMLDetailsElement).open;
      setOpen(nowOpen);
      if (nowOpen && found === null) void search();
    }}>
      <summary>
        <h2>{words.registerMembers}</h2>
      </summary>
      {open && (
        <>
          <form class="filters" role="search" onSubmit={(event) => { event.preventDefault(); void search(); }}>
            <label>
              {words.searchMembers}
              <input type="search" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
            </label>
            <button type="submit" class="secondary-dark">{words.search}</button>
          </form>
          {found === null ? (
            <p aria-busy="true">…</p>
          ) : found.length === 0 ? (
            <p class="muted">{words.nothing}</p>
          ) : (
            <fieldset class="checklist">
              <legend class="visually-hidden">{words.registerMembers}</legend>
              {found.map((person) => (
                <label class="check" key={person.id}>
                  <input
                    type="checkbox"
                    checked={chosen.has(person.id)}
                    onChange={(e) => {
                      const next = new Map(chosen);
                      if ((e.target as HTMLInputElement).checked) next.set(person.id, person);
                      else next.delete(person.id);
                      setChosen(next);
                    }}
                  />
                  {person.firstname} {person.lastname}
                </label>
              ))}
            </fieldset>
          )}
          <label>
            {words.asRole}
            <select value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
              <option value="participant">{words.roleParticipant}</option>
              <option value="helper">{words.roleHelper}</option>
              <option value="leader">{words.roleOfLeader}</option>
            </select>
          </label>
          <Refusals refusals={refusals} />
          <button type="button" disabled={busy || chosen.size === 0} onClick={() => void register()}>
            {words.registerChosen(chosen.size)}
          </button>
        </>
      )}
    </details>
  );
}
