// Fills a fresh data directory for the benchmark through the built service's own modules:
// tenant "bench" with one user (unless benchTenant is false), and N tenants x M users, each
// with a login token. Users share one precomputed password hash, so setting up 20,000 of them
// takes seconds, not hours.
import { get } from 'node:http';
import { loadConfig } from '../dist/config.js';
import { openStorage } from '../dist/server/first-start.js';
import { createTenant } from '../dist/modules/tenants/rules.js';
import { hashPassword } from '../dist/lib/passwords/passwords.js';
import { issueToken } from '../dist/modules/tokens/rules.js';
import { toDbTimestamp } from '../dist/lib/time.js';

export const PASSWORD = 'bench password 123';

export async function setupData(env, { tenants, usersPerTenant, benchTenant = true }) {
  const config = loadConfig(env);
  const storage = await openStorage(config);
  const hash = await hashPassword(PASSWORD);
  const now = toDbTimestamp(new Date());
  const addUsers = async (slug, count) => {
    const db = storage.tenantDb(slug);
    const tokens = [];
    for (let i = 1; i <= count; i++) {
      const user = await db
        .insertInto('users')
        .values({
          username: `user${i}`, email: `user${i}@example.com`, firstname: 'Bench', lastname: `User ${i}`,
          gender_id: 1, type_id: null, phonenumber: null, phonenumber_mobile: null, street: 'Main Street',
          housenumber: '1', zip: '01234', city: 'Bonn', is_vegetarian: 0, can_swimm: 1,
          password: hash, is_active: 1, created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      tokens.push((await issueToken(db, user.id, { tokenPrefix: '' })).plainTextToken);
    }
    return tokens;
  };
  let benchToken;
  if (benchTenant) {
    await createTenant(storage, 'bench');
    [benchToken] = await addUsers('bench', 1);
  }
  const spread = [];
  for (let t = 1; t <= tenants; t++) {
    const slug = `club-${t}`;
    await createTenant(storage, slug);
    for (const token of await addUsers(slug, usersPerTenant)) spread.push({ host: `${slug}.localhost`, token });
  }
  await storage.close();
  return { benchToken, spread };
}

/**
 * The people-page tenant (docs/benchmarks/README.md, "The scenarios"): 10,000 people in 400 groups
 * on 4 levels (the root, 4 regions, 40 districts, 355 troops) with 12,000 memberships, and a leader
 * with `leader` on the first region, who has a token. Returns the token, the region's id and the
 * paths of every page of `GET /api/people?group_id=<region>&below=true&limit=50`, read once by
 * following the cursors.
 */
export async function setupPeople(env, { people = 10_000, slug = 'people', width = 1 } = {}) {
  const { sortKey } = await import('../dist/lib/sort-key.js');
  const config = loadConfig(env);
  const storage = await openStorage(config);
  await createTenant(storage, slug, 'People Bench');
  const db = storage.tenantDb(slug);
  const now = toDbTimestamp(new Date());
  const root = await db.selectFrom('groups').select(['id', 'path']).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const addGroup = async (parent, name) => {
    const { id } = await db
      .insertInto('groups')
      .values({ parent_id: parent.id, name, name_key: sortKey(name), kind: '', description: null, path: parent.path, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const path = `${parent.path}${Number(id)}/`;
    await db.updateTable('groups').set({ path }).where('id', '=', id).execute();
    return { id: Number(id), path };
  };
  const regions = [];
  const troops = [];
  for (let r = 1; r <= 4; r++) regions.push(await addGroup(root, `Region ${r}`));
  let troopCount = 0;
  // `width` times as many districts and troops (and, with ten times the people, as many per troop).
  for (const [r, region] of regions.entries()) {
    for (let d = 1; d <= 10 * width; d++) {
      const district = await addGroup(region, `District ${r + 1}.${d}`);
      for (let t = 1; t <= 9 && troopCount < 355 * width; t++, troopCount++) troops.push(await addGroup(district, `Troop ${r + 1}.${d}.${t}`));
    }
  }
  const lastnames = ['Müller', 'Meier', 'Schmid', 'Keller', 'Weber', 'Huber', 'Schneider', 'Meyer', 'Steiner', 'Fischer', 'Gerber', 'Brunner', 'Baumann', 'Frei', 'Zimmermann', 'Moser', 'Widmer', 'Wyss', 'Graf', 'Roth', 'Émery', 'Løvik', 'de la Cruz', "O'Brien"];
  const firstnames = ['Lena', 'Mia', 'Noah', 'Luca', 'Emma', 'Léon', 'Sara', 'Jonas', 'Anna', 'Elias', 'Zoé', 'Ben'];
  const ids = [];
  const BATCH = 500;
  for (let start = 0; start < people; start += BATCH) {
    const rows = [];
    for (let i = start; i < Math.min(people, start + BATCH); i++) {
      const lastname = `${lastnames[i % lastnames.length]}${i % 7 === 0 ? '' : ` ${Math.floor(i / lastnames.length) % 50}`}`;
      const firstname = firstnames[(i * 7) % firstnames.length];
      rows.push({
        username: null, email: null, firstname, lastname, lastname_key: sortKey(lastname), firstname_key: sortKey(firstname),
        gender_id: null, type_id: null, phonenumber: null, phonenumber_mobile: null, street: null, housenumber: null, zip: null,
        city: 'Bonn', is_vegetarian: i % 5 === 0 ? 1 : 0, can_swimm: i % 3 === 0 ? 1 : 0, password: null, is_active: 1,
        birthday: null, created_at: now, updated_at: now,
      });
    }
    const inserted = await db.insertInto('users').values(rows).returning('id').execute();
    ids.push(...inserted.map((row) => Number(row.id)));
  }
  const memberships = [];
  ids.forEach((id, i) => memberships.push({ person_id: id, group_id: troops[i % troops.length].id, role_type: 'member' }));
  for (let i = 0; i < people / 5; i++) memberships.push({ person_id: ids[(i * 37) % ids.length], group_id: troops[(i * 11 + 5) % troops.length].id, role_type: 'assistant' });
  for (let start = 0; start < memberships.length; start += BATCH) {
    await db
      .insertInto('memberships')
      .values(memberships.slice(start, start + BATCH).map((m) => ({ ...m, label: null, start_on: '2020-01-01', end_on: null, created_at: now, updated_at: now })))
      .execute();
  }
  const hash = await hashPassword(PASSWORD);
  /** A person with a login and a role on one group; their token. */
  const withRole = async (username, firstname, lastname, groupId, roleType) => {
    const person = await db
      .insertInto('users')
      .values({
        username, email: `${username}@example.com`, firstname, lastname, lastname_key: sortKey(lastname), firstname_key: sortKey(firstname),
        gender_id: null, type_id: null, phonenumber: null, phonenumber_mobile: null, street: null, housenumber: null, zip: null, city: null,
        is_vegetarian: 0, can_swimm: 0, password: hash, is_active: 1, birthday: null, created_at: now, updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('memberships')
      .values({ person_id: person.id, group_id: groupId, role_type: roleType, label: null, start_on: '2020-01-01', end_on: null, created_at: now, updated_at: now })
      .execute();
    return (await issueToken(db, Number(person.id), { tokenPrefix: '' })).plainTextToken;
  };
  const token = await withRole('leader', 'Region', 'Leader', regions[0].id, 'leader');
  // An administrator of the whole tenant, for the CSV export of everyone.
  const adminToken = await withRole('admin', 'Tenant', 'Admin', root.id, 'admin');
  await storage.close();
  return { token, adminToken, regionId: regions[0].id, rootId: Number(root.id), host: `${slug}.localhost`, slug };
}

/** The paths of every page of the region's people, following next_cursor from the first page. */
export async function peoplePages(baseUrl, { token, regionId, host }) {
  const first = `/api/people?group_id=${regionId}&below=true&limit=50`;
  const paths = [first];
  let count = 0;
  for (let path = first; ; ) {
    const answer = await getJson(`${baseUrl}${path}`, { host, accept: 'application/json', authorization: `Bearer ${token}` });
    if (answer.status !== 200) throw new Error(`people page ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    const { data } = answer.body;
    count += data.people.length;
    if (!data.next_cursor) break;
    path = `${first}&cursor=${encodeURIComponent(data.next_cursor)}`;
    paths.push(path);
  }
  return { paths, count };
}

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getJson(url, headers) {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text) }));
    }).on('error', reject);
  });
}

/**
 * The events tenant (docs/benchmarks/README.md, "The scenarios"): a troop with `storms` camps of
 * capacity 100, each with 500 members of the troop, every one with a login token, who all register
 * for it at once (register-storm); and a camp with 1,000 accepted participations, a fifth of them
 * vegetarian and a third non-swimmers, whose manager asks for the summary (event-summary).
 */
/** A group "Troop" under the tenant's root, with its materialised path: the events' and the mailing's set-ups share it. */
async function addTroop(db, now) {
  const root = await db.selectFrom('groups').select(['id', 'path']).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const troop = await db
    .insertInto('groups')
    .values({ parent_id: root.id, name: 'Troop', name_key: 'troop', kind: 'troop', description: null, path: root.path, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('groups').set({ path: `${root.path}${Number(troop.id)}/` }).where('id', '=', troop.id).execute();
  return troop;
}

/** A membership row in `groupId` since 2020, without end. */
const membershipRow = (personId, groupId, roleType, now) => ({ person_id: personId, group_id: groupId, role_type: roleType, label: null, start_on: '2020-01-01', end_on: null, created_at: now, updated_at: now });

export async function setupEvents(env, { storms = 3, stormPeople = 500, summaryPeople = 1000, slug = 'events' } = {}) {
  const { sortKey } = await import('../dist/lib/sort-key.js');
  const config = loadConfig(env);
  const storage = await openStorage(config);
  await createTenant(storage, slug, 'Events Bench');
  const db = storage.tenantDb(slug);
  const now = toDbTimestamp(new Date());
  const troop = await addTroop(db, now);
  const person = (i, login) => ({
    username: login ? `scout${i}` : null, email: login ? `scout${i}@example.com` : null, firstname: 'Scout', lastname: `Number ${i}`,
    lastname_key: sortKey(`Number ${i}`), firstname_key: 'scout', gender_id: null, type_id: null, phonenumber: null, phonenumber_mobile: null,
    street: null, housenumber: null, zip: null, city: null, is_vegetarian: i % 5 === 0 ? 1 : 0, can_swimm: i % 3 === 0 ? 0 : 1,
    password: null, is_active: 1, birthday: null, created_at: now, updated_at: now,
  });
  const addPeople = async (from, count, login) => {
    const ids = [];
    for (let start = 0; start < count; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(count, start + 500); i++) rows.push(person(from + i, login));
      ids.push(...(await db.insertInto('users').values(rows).returning('id').execute()).map((row) => Number(row.id)));
      await db
        .insertInto('memberships')
        .values(ids.slice(start).map((id) => membershipRow(id, troop.id, 'member', now)))
        .execute();
    }
    return ids;
  };
  const addEvent = (name, capacity) =>
    db
      .insertInto('events')
      .values({
        group_id: troop.id, name, name_key: sortKey(name), description: null, location: null, starts_at: '2031-07-01 08:00:00.000000',
        ends_at: '2031-07-08 16:00:00.000000', registration_opens_at: null, registration_closes_at: null, capacity, waiting_list: 1,
        requires_approval: 0, created_at: now, updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  const scouts = await addPeople(1, stormPeople, true);
  const scoutTokens = [];
  for (const id of scouts) scoutTokens.push({ id, token: (await issueToken(db, id, { tokenPrefix: '' })).plainTextToken });
  const stormEvents = [];
  for (let s = 1; s <= storms; s++) stormEvents.push(Number((await addEvent(`Storm camp ${s}`, 100)).id));

  const campers = await addPeople(stormPeople + 1, summaryPeople, false);
  const summaryEvent = Number((await addEvent('Big camp', null)).id);
  for (let start = 0; start < campers.length; start += 500) {
    await db
      .insertInto('participations')
      .values(campers.slice(start, start + 500).map((id, i) => ({
        event_id: summaryEvent, person_id: id, role: i % 50 === 0 ? 'helper' : 'participant', state: 'accepted', waitlist_position: null,
        attended: null, notes: null, created_at: now, updated_at: now,
      })))
      .execute();
  }
  const participants = await db.selectFrom('participations').select(db.fn.countAll().as('n')).where('event_id', '=', summaryEvent).where('role', '=', 'participant').executeTakeFirstOrThrow();
  await db.updateTable('events').set({ participants_count: Number(participants.n) }).where('id', '=', summaryEvent).execute();

  const manager = await db.insertInto('users').values({ ...person(0, true), username: 'manager', email: 'manager@example.com' }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('memberships')
    .values(membershipRow(manager.id, troop.id, 'leader', now))
    .execute();
  const managerToken = (await issueToken(db, Number(manager.id), { tokenPrefix: '' })).plainTextToken;
  await storage.close();
  return { host: `${slug}.localhost`, scoutTokens, stormEvents, summaryEvent, managerToken };
}

/**
 * Every scout registers for the event at once (one connection each), and the answers are timed:
 * the storm lasts until the last one is in. Returns the statuses and each request's milliseconds.
 */
export async function registerStorm(baseUrls, { host, scoutTokens }, eventId) {
  const { Agent, request } = await import('node:http');
  const agent = new Agent({ keepAlive: false, maxSockets: scoutTokens.length });
  // With several instances, the registrations are dealt out among them in turn.
  const urls = baseUrls.map((baseUrl) => new URL(`${baseUrl}/api/events/${eventId}/participations`));
  const started = performance.now();
  const answers = await Promise.all(
    scoutTokens.map(
      ({ id, token }, i) =>
        new Promise((resolve) => {
          const sent = performance.now();
          const body = JSON.stringify({ person_id: id });
          const req = request(
            urls[i % urls.length],
            { method: 'POST', agent, headers: { host, accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(body) } },
            (response) => {
              response.resume();
              response.on('end', () => resolve({ status: response.statusCode, ms: performance.now() - sent }));
            },
          );
          req.on('error', () => resolve({ status: 0, ms: performance.now() - sent }));
          req.end(body);
        }),
    ),
  );
  const totalMs = performance.now() - started;
  agent.destroy();
  const event = await getJson(`${baseUrls[0]}/api/events/${eventId}`, { host, accept: 'application/json', authorization: `Bearer ${scoutTokens[0].token}` });
  return { answers, totalMs, event: event.body.data.event };
}

/**
 * Tenant `slug` with a troop of `people` members, each with an e-mail address, and a leader who
 * writes to them all (a message to the whole troop).
 */
export async function setupMailing(env, { people = 3000, slug = 'mailing' } = {}) {
  const { sortKey } = await import('../dist/lib/sort-key.js');
  const config = loadConfig(env);
  const storage = await openStorage(config);
  await createTenant(storage, slug, 'Mailing Bench');
  const db = storage.tenantDb(slug);
  const now = toDbTimestamp(new Date());
  const troop = await addTroop(db, now);
  const person = (i) => ({
    username: null, email: `family${i}@families.example.org`, firstname: 'Family', lastname: `Number ${i}`,
    lastname_key: sortKey(`Number ${i}`), firstname_key: 'family', gender_id: null, type_id: null, phonenumber: null, phonenumber_mobile: null,
    street: null, housenumber: null, zip: null, city: null, is_vegetarian: 0, can_swimm: 1,
    password: null, is_active: 1, birthday: '1980-01-01', created_at: now, updated_at: now,
  });
  const membership = (id, roleType) => membershipRow(id, troop.id, roleType, now);
  for (let start = 1; start <= people; start += 500) {
    const rows = [];
    for (let i = start; i < Math.min(people + 1, start + 500); i++) rows.push(person(i));
    const ids = (await db.insertInto('users').values(rows).returning('id').execute()).map((row) => Number(row.id));
    await db.insertInto('memberships').values(ids.map((id) => membership(id, 'member'))).execute();
  }
  const leader = await db
    .insertInto('users')
    .values({ ...person(0), username: 'leader', email: 'leader@families.example.org', firstname: 'Lena', lastname: 'Leader', lastname_key: 'leader', firstname_key: 'lena' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.insertInto('memberships').values(membership(Number(leader.id), 'leader')).execute();
  const leaderToken = (await issueToken(db, Number(leader.id), { tokenPrefix: '' })).plainTextToken;
  await storage.close();
  return { host: `${slug}.localhost`, groupId: Number(troop.id), leaderToken, people };
}
