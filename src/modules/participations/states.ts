import type { ParticipationRole, ParticipationState } from '../../db/types.js';

/**
 * The state machine of a participation (docs/rules/waiting-list.md), the seats it takes and its
 * place in the queue. Plain functions, no storage: seats.ts applies them to an event's counts.
 */
export const STATES = ['pending', 'accepted', 'waitlisted', 'rejected', 'cancelled'] as const satisfies readonly ParticipationState[];
export const ROLES = ['participant', 'helper', 'leader'] as const satisfies readonly ParticipationRole[];

/** A participation still in the running: it holds a seat, a place in the queue, or awaits a decision. */
export const LIVE_STATES: readonly ParticipationState[] = ['pending', 'accepted', 'waitlisted'];
export const isLive = (state: ParticipationState): boolean => LIVE_STATES.includes(state);

/** The transitions a manager may make; the person and their guardians may only cancel. */
const MANAGER_TRANSITIONS: Readonly<Record<ParticipationState, readonly ParticipationState[]>> = {
  pending: ['accepted', 'rejected', 'waitlisted', 'cancelled'],
  waitlisted: ['accepted', 'cancelled'],
  accepted: ['cancelled'],
  rejected: [],
  cancelled: [],
};

export const isTransition = (from: ParticipationState, to: ParticipationState): boolean => MANAGER_TRANSITIONS[from].includes(to);

/** Whether the person or a guardian may make this transition (a cancellation of a live one). */
export const isSelfServiceTransition = (from: ParticipationState, to: ParticipationState): boolean =>
  to === 'cancelled' && isTransition(from, to);

/** A participation takes one of the seats `capacity` limits: an accepted participant. */
export const takesSeat = (p: { role: ParticipationRole; state: ParticipationState }): boolean =>
  p.state === 'accepted' && p.role === 'participant';

/** The seats left, or Infinity without a capacity. */
export const seatsLeft = (event: { capacity: number | null; participants_count: number }): number =>
  event.capacity === null ? Number.POSITIVE_INFINITY : Math.max(0, Number(event.capacity) - Number(event.participants_count));

/**
 * Where a new registration lands: `pending` when a manager must approve; else `accepted` while
 * there is a seat (helpers and leaders need none); else the end of the queue when the event has a
 * waiting list; else nowhere (the event is full).
 */
export function registrationState(
  event: { capacity: number | null; participants_count: number; waiting_list: boolean; requires_approval: boolean },
  role: ParticipationRole,
): ParticipationState | 'full' {
  if (event.requires_approval) return 'pending';
  if (role !== 'participant' || seatsLeft(event) > 0) return 'accepted';
  return event.waiting_list ? 'waitlisted' : 'full';
}
