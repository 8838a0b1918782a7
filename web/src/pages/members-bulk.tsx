import { useState } from 'preact/hooks';
import { covers } from '../access.js';
import { validationErrors } from '../components/field.js';
import { GroupRolePicker } from '../components/group-role-picker.js';
import { namedRefusals, Refusals } from '../components/refusals.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatDate, formatMoment } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';
import type { Member } from './members-table.js';

type Action = 'end' | 'register' | 'add' | 'export';

/** The most people `GET /people?ids=` names at once. */
const MOST_IDS = 200;
type Result = { data?: unknown; error?: unknown; response: Response };

/**
 * What a leader does with the rows chosen in the members table, each in one request (the bulk
 * forms: all or nothing, every refusal named): end their memberships on a day, register them for
 * an event, add them to a group; and download the chosen people.
 */
export function MembersBulk({ groupId, canWrite, chosen, onDone }: { groupId: number; canWrite: boolean; chosen: Member[]; onDone: () => void }) {
  const app = useApp();
  const { words } = app;
  const [action, setAction] = useState<Action | null>(null);
  const [refusals, setRefusals] = useState<string[]>([]);
  const actions: Action[] = canWrite ? ['end', 'register', 'add', 'export'] : ['export'];
  const label: Record<Action, string> = { end: words.bulkEnd, register: words.bulkRegister, add: words.bulkAdd, export: words.bulkExport };

  /** Sends one bulk request; a refusal names each refused person with the API's reason. */
  const send = async (result: Promise<Result>, personAt: (index: number) => Member['person'] | undefined, done: string) => {
    setRefusals([]);
    const answer = await result;
    if (answer.data !== undefined) {
      app.announce(done);
      setAction(null);
      return onDone();
    }
    const errors = validationErrors(answer.response, answer.error);
    if (!errors) return app.report(troubleOf(answer.response, answer.error));
    setRefusals(namedRefusals(errors, personAt, app.language));
  };
  const byIndex = (index: number) => chosen[index]?.person;

  return (
    <section class="bulk" aria-labelledby="bulk-title">
      <h3 id="bulk-title">{words.chosenCount(chosen.length)}</h3>
      <div class="tabs" role="group" aria-labelledby="bulk-title">
        {actions.map((choice) => (
          <button type="button" class={action === choice ? '' : 'secondary-dark'} aria-pressed={action === choice} onClick={() => { setRefusals([]); setAction(action === choice ? null : choice); }}>
            {label[choice]}
          </button>
        ))}
      </div>
      {/* The refusals of the last request: another action starts without them. */}
      <Refusals refusals={refusals} />
      {action === 'end' && <EndMemberships groupId={groupId} chosen={chosen} send={send} />}
      {action === 'register' && (
        <RegisterChosen groupId={groupId} chosen={chosen} send={(result, done) => send(result, byIndex, done)} />
      )}
      {action === 'add' && <AddToGroup chosen={chosen} send={(result, done) => send(result, byIndex, done)} />}
      {action === 'export' && <ExportChosen chosen={chosen} />}
    </section>
  );
}

type Send = (result: Promise<Result>, done: string) => Promise<void>;

/** The chosen people's open memberships shown in the table, ended on one day, after a question. */
function EndMemberships({ groupId, chosen, send }: { groupId: number; chosen: Member[]; send: (result: Promise<Result>, personAt: (index: number) => Member['person'] | undefined, done: string) => Promise<void> }) {
  const app = useApp();
  const { words, language, session } = app;
  const [on, setOn] = useState(session.today);
  const role = (key: string) => session.roleTypes.find((r) => r.key === key);
  const open = chosen.flatMap(({ person, memberships }) =>
    memberships
      .filter((m) => (m.end_on === null || m.end_on > on) && m.start_on <= on)
      .filter((m) => session.access.atLeast(m.group_id, 'write') && covers(session.access.permissionOn(m.group_id), role(m.role_type)?.permission ?? 'admin'))
      .map((m) => ({ membership: m, person })),
  );
  const day = formatDate(`${on}T12:00:00Z`, language, 'UTC');
  const end = async (event: Event) => {
    event.preventDefault();
    const group = session.access.groups.get(groupId)?.name ?? '';
    if (!confirm(words.confirmEndMemberships(open.length, group, day))) return;
    await send(
      client.memberships.updateMany({ memberships: open.map(({ membership }) => ({ id: membership.id, end_on: on })) }),
      (index) => open[index]?.person,
      words.membershipsEnded(open.length, day),
    );
  };
  return (
    <form class="inline-form" onSubmit={end}>
      <label>
        {words.endOn}
        <input type="date" name="end_on" required value={on} onInput={(e) => setOn((e.target as HTMLInputElement).value)} />
      </label>
      <p class="muted">{words.membershipsToEnd(open.length)}</p>
      <button type="submit" disabled={open.length === 0}>
        {words.bulkEnd}
      </button>
    </form>
  );
}

/** The chosen people registered for one of the group's coming events (read when the action opens), in one role. */
function RegisterChosen({ groupId, chosen, send }: { groupId: number; chosen: Member[]; send: Send }) {
  const app = useApp();
  const { words, language, session } = app;
  const [events] = useLoad(async () => dataOf(app, await client.events.list({ group_id: groupId, from: new Date().toISOString(), limit: 50 }))?.data.events ?? null, [groupId]);
  const [eventId, setEventId] = useState(0);
  const [role, setRole] = useState<'participant' | 'helper' | 'leader'>('participant');
  const register = async (event: Event) => {
    event.preventDefault();
    const name = events?.find((e) => e.id === eventId)?.name ?? '';
    await send(client.participations.registerMany(eventId, { person_ids: chosen.map((m) => m.person.id), role }), words.registeredFor(chosen.length, name));
  };
  if (events === null) return <p aria-busy="true">…</p>;
  if (events.length === 0) return <p class="muted">{words.noComingEvents}</p>;
  return (
    <form class="inline-form" onSubmit={register}>
      <label>
        {words.event}
        <select name="event_id" required value={eventId === 0 ? '' : eventId} onChange={(e) => setEventId(Number((e.target as HTMLSelectElement).value))}>
          <option value="">{words.chooseEvent}</option>
          {events.map((e) => (
            <option value={e.id}>
              {e.name} · {formatMoment(e.starts_at, language, session.timeZone)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {words.asRole}
        <select name="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as typeof role)}>
          <option value="participant">{words.roleParticipant}</option>
          <option value="helper">{words.roleHelper}</option>
          <option value="leader">{words.roleOfLeader}</option>
        </select>
      </label>
      <button type="submit">{words.bulkRegister}</button>
    </form>
  );
}

/** The chosen people given a membership in another group the reader leads; nothing preselected. */
function AddToGroup({ chosen, send }: { chosen: Member[]; send: Send }) {
  const app = useApp();
  const { words, session } = app;
  const [groupId, setGroupId] = useState(0);
  const [role, setRole] = useState('');
  const add = async (event: Event) => {
    event.preventDefault();
    const name = session.access.groups.get(groupId)?.name ?? '';
    await send(client.memberships.createMany({ person_ids: chosen.map((m) => m.person.id), group_id: groupId, role_type: role }), words.addedToGroup(chosen.length, name));
  };
  return (
    <form class="inline-form" onSubmit={add}>
      <GroupRolePicker groupId={groupId} role={role} onChange={(group, chosen) => { setGroupId(group); setRole(chosen); }} />
      <button type="submit">{words.bulkAdd}</button>
    </form>
  );
}

/** The chosen people as a file: the people list's columns (GET /people?ids=), Excel first. */
function ExportChosen({ chosen }: { chosen: Member[] }) {
  const { words } = useApp();
  // The people list takes at most 200 ids; beyond, the table's own download holds everyone.
  if (chosen.length > MOST_IDS) return <p class="muted">{words.tooManyToDownload(MOST_IDS)}</p>;
  const ids = chosen.map((m) => m.person.id).join(',');
  return (
    <p class="downloads">
      <a href={`/api/people?ids=${ids}&format=xlsx`} download>
        {words.downloadXlsx}
      </a>{' '}
      <a href={`/api/people?ids=${ids}&format=csv`} download>
        {words.downloadCsv}
      </a>
    </p>
  );
}
