import { useEffect, useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { roleTypeLabel } from '../i18n/index.js';
import { client } from '../session.js';
import { MembersBulk } from './members-bulk.js';

type Page = NonNullable<Awaited<ReturnType<typeof client.groups.members>>['data']>['data'];
export type Member = Page['members'][number];
type Sort = 'name' | '-name' | 'birthday' | '-birthday' | 'role';

interface Filters {
  q: string;
  roleType: string;
  below: boolean;
  all: boolean;
  sort: Sort;
}

const FIRST: Filters = { q: '', roleType: '', below: false, all: false, sort: 'name' };
const PAGE = 50;

/** Full years from `birthday` to `today` (both YYYY-MM-DD). */
export function ageOn(birthday: string, today: string): number {
  const years = Number(today.slice(0, 4)) - Number(birthday.slice(0, 4));
  return today.slice(5) < birthday.slice(5) ? years - 1 : years;
}

/**
 * A group's members as a table: name, roles, group, age, phone, e-mail; sorted by name, age or
 * role; searched and filtered by role, with subgroups and ended memberships; more pages on demand;
 * rows selected for a bulk action. One request a page (GET /groups/{id}/members, with the count).
 */
export function MembersTable({ groupId, canWrite }: { groupId: number; canWrite: boolean }) {
  const app = useApp();
  const { words, language, session } = app;
  const [typed, setTyped] = useState<Filters>(FIRST);
  // What the table shows: the filters as last applied (a cursor belongs to exactly those).
  const [applied, setApplied] = useState<Filters & { round: number }>({ ...FIRST, round: 0 });
  const [members, setMembers] = useState<Member[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const query = (filters: Filters) => ({
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.roleType ? { role_type: filters.roleType } : {}),
    ...(filters.below ? { below: true } : {}),
    ...(filters.all ? { all: true } : {}),
    sort: filters.sort,
  });
  const load = async (cursor: string | null) => dataOf(app, await client.groups.members(groupId, { ...query(applied), limit: PAGE, ...(cursor ? { cursor } : {}) }))?.data ?? null;
  const [first] = useLoad(() => load(null), [groupId, applied]);
  useEffect(() => {
    if (!first) return;
    setMembers(first.members);
    setNext(first.next_cursor);
    setTotal(first.total ?? null);
    setChosen(new Set());
  }, [first]);
  const apply = (filters: Filters) => {
    setTyped(filters);
    setApplied({ ...filters, round: applied.round + 1 });
  };
  const more = async () => {
    const page = next ? await load(next) : null;
    if (!page) return;
    setMembers([...members, ...page.members]);
    setNext(page.next_cursor);
  };
  const roleLabel = (key: string) => {
    const role = session.roleTypes.find((r) => r.key === key);
    return role ? roleTypeLabel(role, language) : key;
  };
  const toggle = (id: number) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setChosen(next);
  };
  const allChosen = members.length > 0 && members.every((m) => chosen.has(m.person.id));
  const fileQuery = new URLSearchParams(Object.entries(query(applied)).map(([key, value]) => [key, String(value)]));
  const download = (format: 'xlsx' | 'csv' | 'vcf') => `/api/groups/${groupId}/members?${fileQuery.toString()}&format=${format}`;
  const sortBy = (sort: Sort) => apply({ ...typed, sort });

  return (
    <section class="card" aria-labelledby="members-title">
      <h2 id="members-title">
        {words.members} {total !== null && <span class="muted count">({words.memberCount(total)})</span>}
      </h2>
      <form class="filters" role="search" onSubmit={(e) => { e.preventDefault(); apply(typed); }}>
        <label>
          {words.search}
          <input name="q" type="search" value={typed.q} onInput={(e) => setTyped({ ...typed, q: (e.target as HTMLInputElement).value })} />
        </label>
        <label>
          {words.role}
          <select name="role_type" value={typed.roleType} onChange={(e) => setTyped({ ...typed, roleType: (e.target as HTMLSelectElement).value })}>
            <option value="">{words.anyRole}</option>
            {session.roleTypes.map((role) => (
              <option value={role.key}>{roleTypeLabel(role, language)}</option>
            ))}
          </select>
        </label>
        <label>
          {words.sortBy}
          <select name="sort" value={typed.sort} onChange={(e) => sortBy((e.target as HTMLSelectElement).value as Sort)}>
            <option value="name">{words.sortName}</option>
            <option value="-name">{words.sortNameDescending}</option>
            <option value="-birthday">{words.sortYoungest}</option>
            <option value="birthday">{words.sortOldest}</option>
            <option value="role">{words.sortRole}</option>
          </select>
        </label>
        <label class="check">
          <input type="checkbox" name="below" checked={typed.below} onChange={(e) => apply({ ...typed, below: (e.target as HTMLInputElement).checked })} />
          {words.includeSubgroups}
        </label>
        <label class="check">
          <input type="checkbox" name="all" checked={typed.all} onChange={(e) => apply({ ...typed, all: (e.target as HTMLInputElement).checked })} />
          {words.includeEnded}
        </label>
        <button type="submit">{words.search}</button>
      </form>
      <p class="downloads">
        <a href={download('xlsx')} download>
          {words.downloadXlsx}
        </a>{' '}
        <a href={download('csv')} download>
          {words.downloadCsv}
        </a>
      </p>
      {/* An address book's file, apart from the spreadsheets: the same filters, guardians' cards added by the API. */}
      <p class="downloads">
        <a href={download('vcf')} download>
          {words.downloadContacts}
        </a>
      </p>
      {members.length === 0 ? (
        <p class="muted">{first === null ? '…' : words.nothing}</p>
      ) : (
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="members-title">
          <table class="table members">
            <thead>
              <tr>
                <th scope="col">
                  <input type="checkbox" aria-label={words.selectAllShown} checked={allChosen} onChange={() => setChosen(allChosen ? new Set() : new Set(members.map((m) => m.person.id)))} />
                </th>
                <th scope="col" aria-sort={applied.sort === 'name' ? 'ascending' : applied.sort === '-name' ? 'descending' : undefined}>
                  <button type="button" class="link" onClick={() => sortBy(applied.sort === 'name' ? '-name' : 'name')}>
                    {words.name}
                  </button>
                </th>
                <th scope="col" aria-sort={applied.sort === 'role' ? 'descending' : undefined}>
                  <button type="button" class="link" onClick={() => sortBy('role')}>
                    {words.role}
                  </button>
                </th>
                <th scope="col">{words.group}</th>
                <th scope="col" aria-sort={applied.sort === '-birthday' ? 'ascending' : applied.sort === 'birthday' ? 'descending' : undefined}>
                  <button type="button" class="link" onClick={() => sortBy(applied.sort === '-birthday' ? 'birthday' : '-birthday')}>
                    {words.age}
                  </button>
                </th>
                <th scope="col">{words.phonenumber}</th>
                <th scope="col">{words.email}</th>
              </tr>
            </thead>
            <tbody>
              {members.map(({ person, memberships }) => (
                <tr key={person.id}>
                  <td>
                    <input type="checkbox" aria-label={words.selectPerson(`${person.firstname} ${person.lastname}`)} checked={chosen.has(person.id)} onChange={() => toggle(person.id)} />
                  </td>
                  <td>
                    <a href={`#/people/${person.id}`}>
                      {person.lastname} {person.firstname}
                    </a>
                  </td>
                  <td>
                    {[...new Set(memberships.map((m) => roleLabel(m.role_type) + (m.end_on !== null && m.end_on < session.today ? ` (${words.ended})` : '')))].join(', ')}
                  </td>
                  <td>{[...new Set(memberships.map((m) => m.group_name))].join(', ')}</td>
                  <td>{person.birthday ? ageOn(person.birthday, session.today) : ''}</td>
                  <td class="phone">{person.phonenumber_mobile ?? person.phonenumber ?? ''}</td>
                  <td class="email">{person.email ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <button type="button" class="secondary-dark" onClick={() => void more()}>
          {words.more}
        </button>
      )}
      {chosen.size > 0 && (
        <MembersBulk
          groupId={groupId}
          canWrite={canWrite}
          chosen={members.filter((m) => chosen.has(m.person.id))}
          onDone={() => setApplied({ ...applied, round: applied.round + 1 })}
        />
      )}
    </section>
  );
}
