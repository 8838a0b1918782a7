import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type Participation, type World } from '../../helpers/events.js';

/**
 * Seats and the waiting list as a state machine: random sequences of register / cancel / approve /
 * reject / waitlist / accept-from-the-queue / raise and lower capacity / switch approval on and
 * off, run against one event through the API and against a small model of that event. After every
 * step the service's counts, every participation's state and role and every waiting-list position
 * equal the model's.
 *
 * The model keeps one invariant the rules imply and never leave ambiguous: somebody waits only
 * while the event is full (registrations wait only when full, a freed seat or a raised capacity
 * takes the first in line). So "pending -> waitlisted" is only tried on a full event.
 */

type State = 'pending' | 'accepted' | 'waitlisted' | 'rejected' | 'cancelled';
type Role = 'participant' | 'helper';

interface ModelParticipation {
  person: number;
  role: Role;
  state: State;
  position: number | null;
}

interface Model {
  capacity: number | null;
  waitingList: boolean;
  requiresApproval: boolean;
  /** By the participation's id, as the service gave it. */
  participations: Map<number, ModelParticipation>;
}

interface Real {
  w: World;
  eventId: number;
  people: number[];
}

const LIVE: State[] = ['pending', 'accepted', 'waitlisted'];
const PEOPLE = 8;

const acceptedParticipants = (m: Model) => [...m.participations.values()].filter((p) => p.role === 'participant' && p.state === 'accepted').length;
const hasRoom = (m: Model) => m.capacity === null || acceptedParticipants(m) < m.capacity;
const queue = (m: Model) => [...m.participations.values()].filter((p) => p.state === 'waitlisted').sort((a, b) => a.position! - b.position!);
const withState = (m: Model, states: State[], role?: Role) =>
  [...m.participations.entries()].filter(([, p]) => states.includes(p.state) && (role === undefined || p.role === role)).sort(([a], [b]) => a - b);

/** The participation leaves the queue: the positions behind it move up. */
function leaveQueue(m: Model, p: ModelParticipation): void {
  const from = p.position!;
  for (const other of m.participations.values()) if (other.state === 'waitlisted' && other.position! > from) other.position! -= 1;
  p.position = null;
}

/** Free seats go to the first in line, one by one. */
function promote(m: Model): void {
  while (hasRoom(m)) {
    const first = queue(m)[0];
    if (!first) return;
    leaveQueue(m, first);
    first.state = 'accepted';
  }
}

async function expectRefusal(answer: Awaited<ReturnType<World['call']>>, message: string): Promise<void> {
  expect(answer.statusCode, answer.body).toBe(422);
  expect(answer.json().message).toBe(message);
}

async function checkAgainstModel(m: Model, r: Real): Promise<void> {
  const event = (await r.w.call('admin', 'GET', `/events/${r.eventId}`)).json().data.event;
  expect({ capacity: event.capacity, participants_count: event.participants_count, waitlist_count: event.waitlist_count }).toEqual({
    capacity: m.capacity,
    participants_count: acceptedParticipants(m),
    waitlist_count: queue(m).length,
  });
  const actual = (await r.w.participations(r.eventId)).map((p: Participation) => [p.id, p.person_id, p.role, p.state, p.waitlist_position]);
  const expected = [...m.participations.entries()].sort(([a], [b]) => a - b).map(([id, p]) => [id, r.people[p.person], p.role, p.state, p.position]);
  expect(actual).toEqual(expected);
  expect(queue(m).map((p) => p.position)).toEqual(queue(m).map((_, i) => i + 1));
}

type Command = fc.AsyncCommand<Model, Real>;

class Register implements Command {
  constructor(readonly person: number, readonly role: Role) {}
  // Helpers are registered while no approval is asked for (a pending helper's approval is tested on its own).
  check = (m: Readonly<Model>) => this.role === 'participant' || !m.requiresApproval;
  async run(m: Model, r: Real) {
    const answer = await r.w.call('admin', 'POST', `/events/${r.eventId}/participations`, { person_id: r.people[this.person], role: this.role });
    const live = [...m.participations.values()].some((p) => p.person === this.person && LIVE.includes(p.state));
    if (live) return expectRefusal(answer, 'The person is already registered.');
    let state: State;
    if (m.requiresApproval) state = 'pending';
    else if (this.role !== 'participant' || hasRoom(m)) state = 'accepted';
    else if (m.waitingList) state = 'waitlisted';
    else return expectRefusal(answer, 'The event is full.');
    expect(answer.statusCode, answer.body).toBe(201);
    const created = answer.json().data.participation as Participation;
    const position = state === 'waitlisted' ? queue(m).length + 1 : null;
    expect([created.state, created.waitlist_position]).toEqual([state, position]);
    m.participations.set(created.id, { person: this.person, role: this.role, state, position });
  }
  toString = () => `register(${this.person}, ${this.role})`;
}

/** A manager's state change of the k-th participation among those in `from` (by id). */
abstract class Transition implements Command {
  constructor(readonly k: number) {}
  abstract from: State[];
  abstract to: State;
  role?: Role;
  check(m: Readonly<Model>) {
    return withState(m as Model, this.from, this.role).length > 0;
  }
  pick(m: Model): [number, ModelParticipation] {
    const candidates = withState(m, this.from, this.role);
    return candidates[this.k % candidates.length]!;
  }
  async send(r: Real, id: number) {
    return r.w.call('admin', 'PATCH', `/participations/${id}`, { state: this.to });
  }
  abstract run(m: Model, r: Real): Promise<void>;
  toString() {
    return `${this.constructor.name}(${this.k})`;
  }
}

class Cancel extends Transition {
  from = LIVE;
  to = 'cancelled' as const;
  async run(m: Model, r: Real) {
    const [id, p] = this.pick(m);
    const answer = await this.send(r, id);
    expect(answer.statusCode, answer.body).toBe(200);
    if (p.state === 'waitlisted') leaveQueue(m, p);
    p.state = 'cancelled';
    promote(m);
  }
}

class Approve extends Transition {
  from: State[] = ['pending'];
  to = 'accepted' as const;
  async run(m: Model, r: Real) {
    const [id, p] = this.pick(m);
    const answer = await this.send(r, id);
    if (p.role === 'participant' && !hasRoom(m)) return expectRefusal(answer, 'The event is full.');
    expect(answer.statusCode, answer.body).toBe(200);
    p.state = 'accepted';
  }
}

class Reject extends Transition {
  from: State[] = ['pending'];
  to = 'rejected' as const;
  async run(m: Model, r: Real) {
    const [id, p] = this.pick(m);
    const answer = await this.send(r, id);
    expect(answer.statusCode, answer.body).toBe(200);
    p.state = 'rejected';
  }
}

/** pending -> waitlisted, tried only on a full event (see the comment at the top). */
class Waitlist extends Transition {
  from: State[] = ['pending'];
  to = 'waitlisted' as const;
  override role = 'participant' as const;
  override check(m: Readonly<Model>) {
    return super.check(m) && !hasRoom(m as Model);
  }
  async run(m: Model, r: Real) {
    const [id, p] = this.pick(m);
    const answer = await this.send(r, id);
    if (!m.waitingList) return expectRefusal(answer, 'The event has no waiting list.');
    expect(answer.statusCode, answer.body).toBe(200);
    p.state = 'waitlisted';
    p.position = queue(m).length;
  }
}

class AcceptFromQueue extends Transition {
  from: State[] = ['waitlisted'];
  to = 'accepted' as const;
  async run(m: Model, r: Real) {
    const [id, p] = this.pick(m);
    const answer = await this.send(r, id);
    if (!hasRoom(m)) return expectRefusal(answer, 'The event is full.');
    expect(answer.statusCode, answer.body).toBe(200);
    leaveQueue(m, p);
    p.state = 'accepted';
  }
}

/** accepted -> pending is no transition at all. */
class Unaccept extends Transition {
  from: State[] = ['accepted'];
  to = 'pending' as const;
  async run(m: Model, r: Real) {
    const [id] = this.pick(m);
    await expectRefusal(await this.send(r, id), 'The state cannot change from accepted to pending.');
  }
}

class SetCapacity implements Command {
  constructor(readonly capacity: number | null) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const answer = await r.w.call('admin', 'PATCH', `/events/${r.eventId}`, { capacity: this.capacity });
    if (this.capacity !== null && this.capacity < acceptedParticipants(m)) {
      return expectRefusal(answer, 'The capacity may not be less than the accepted participants.');
    }
    expect(answer.statusCode, answer.body).toBe(200);
    m.capacity = this.capacity;
    promote(m);
    expect(answer.json().data.event).toMatchObject({ capacity: m.capacity, participants_count: acceptedParticipants(m), waitlist_count: queue(m).length });
  }
  toString = () => `capacity(${this.capacity})`;
}

class SetApproval implements Command {
  constructor(readonly requiresApproval: boolean) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const answer = await r.w.call('admin', 'PATCH', `/events/${r.eventId}`, { requires_approval: this.requiresApproval });
    expect(answer.statusCode, answer.body).toBe(200);
    m.requiresApproval = this.requiresApproval;
  }
  toString = () => `approval(${this.requiresApproval})`;
}

/** Every command checks the whole event against the model after it ran. */
const checked = (command: Command): Command => ({
  check: (m) => command.check(m),
  run: async (m, r) => {
    await command.run(m, r);
    await checkAgainstModel(m, r);
  },
  toString: () => command.toString(),
});

const commands: fc.WeightedArbitrary<Command>[] = [
  { weight: 4, arbitrary: fc.tuple(fc.integer({ min: 0, max: PEOPLE - 1 }), fc.constantFrom<Role>('participant', 'participant', 'participant', 'helper')).map(([person, role]) => new Register(person, role)) },
  { weight: 2, arbitrary: fc.nat().map((k) => new Cancel(k)) },
  { weight: 2, arbitrary: fc.nat().map((k) => new Approve(k)) },
  { weight: 1, arbitrary: fc.nat().map((k) => new Reject(k)) },
  { weight: 2, arbitrary: fc.nat().map((k) => new Waitlist(k)) },
  { weight: 1, arbitrary: fc.nat().map((k) => new AcceptFromQueue(k)) },
  { weight: 1, arbitrary: fc.nat().map((k) => new Unaccept(k)) },
  { weight: 2, arbitrary: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 8 }).map((capacity) => new SetCapacity(capacity)) },
  { weight: 1, arbitrary: fc.boolean().map((on) => new SetApproval(on)) },
].map(({ weight, arbitrary }) => ({ weight, arbitrary: (arbitrary as fc.Arbitrary<Command>).map(checked) }));

describe('participations against a model of one event', () => {
  let w: World;
  let people: number[];
  beforeAll(async () => {
    w = await buildWorld(await buildTestApp());
    people = [];
    for (let i = 0; i < PEOPLE; i++) people.push(await w.person(w.troopA, `Model ${i}`));
  }, 60_000);
  afterAll(() => w?.t.close());

  it('keeps counts, states and waiting-list positions equal to the model after every step', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ capacity: fc.integer({ min: 1, max: 3 }), waitingList: fc.constantFrom(true, true, false), requiresApproval: fc.boolean() }),
        fc.array(fc.oneof(...commands), { minLength: 25, maxLength: 40 }),
        async (start, sequence) => {
          const event = await w.event('admin', {
            group_id: w.region, name: 'Model camp', starts_at: daysFromNow(30), ends_at: daysFromNow(31),
            capacity: start.capacity, waiting_list: start.waitingList, requires_approval: start.requiresApproval,
          });
          const model: Model = { ...start, participations: new Map() };
          await fc.asyncModelRun(() => ({ model, real: { w, eventId: event.id, people } }), sequence);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
