import type { GroupRow, ParticipationState, TenantDb } from '../../db/types.js';
import { ApiError, errors, fieldMessages } from '../../errors.js';
import type { CursorCodec, Page } from '../../http/paging.js';
import { toApiTimestamp, toDbTimestamp } from '../../lib/time.js';
import { actorOf, transact } from '../../recording/recorder.js';
import { findEventWithGroup, managesGroup, requireVisibleEvent } from '../events/rules.js';
import { requireGroup } from '../groups/rules.js';
import { headerName, renderMail } from '../mail/layout.js';
import { queueMails, type NewMail } from '../mail/outbox.js';
import type { MailHub } from '../mail/settings.js';
import { addresseesOf, type Letterhead } from '../notifications/rules.js';
import { atLeast } from '../permissions/levels.js';
import type { Access } from '../permissions/rules.js';
import {
  countsByMessage,
  findMessage,
  groupsAtOrBelow,
  insertMessage,
  insertRecipients,
  listMessageRows,
  lockMessageLimits,
  memberIdsOf,
  participantIdsOf,
  recipientsOf,
  recipientsSince,
  sentSince,
  type MessageRow,
  type MessageSelection,
  type NewRecipientRow,
} from './queries.js';
import { resolveRecipients, type Recipient } from './recipients.js';
import { messageMessages, type ApiMessage, type Counts, type MessageListFilters, type NewMessage, type TargetEcho } from './schemas.js';
import { nextDay, startOfDay } from './tenant-day.js';
import { MESSAGE_WORDS } from './texts.js';

// A leader writes to a group or an event (docs/api/messages-and-notifications.md).

export interface MessageContext {
  hub: MailHub;
  letterhead: Letterhead;
}

const HOUR_MS = 3_600_000;

export const messageNotFound = () => new ApiError('not_found', messageMessages.notFound);

/** A group's target: `write` on the group, and with `below` on every group of its subtree. */
async function requireWriteOnTarget(db: TenantDb, access: Access, group: GroupRow, below: boolean): Promise<void> {
  if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
  if (below && !(await writesOnSubtree(db, access, group))) throw errors.unauthorized();
}

/** `write` on every group of the group's subtree (the group included). */
async function writesOnSubtree(db: TenantDb, access: Access, group: Pick<GroupRow, 'path'>): Promise<boolean> {
  return (await groupsAtOrBelow(db, group.path)).every((member) => atLeast(access.on(member.path), 'write'));
}

/** Whom a target reaches, and what its answers echo. */
interface ResolvedTarget {
  echo: TargetEcho;
  groupId: number | null;
  eventId: number | null;
  name: string;
  memberIds: number[];
}

async function resolveTarget(db: TenantDb, access: Access, to: NewMessage['to']): Promise<ResolvedTarget> {
  const guardians = to.guardians ?? 'include';
  if ('event_id' in to) {
    const { event, manager } = await requireVisibleEvent(db, access, to.event_id);
    if (!manager) throw errors.unauthorized();
    const states: ParticipationState[] = to.states ?? ['accepted'];
    return {
      echo: { event_id: Number(event.id), states, guardians },
      groupId: null,
      eventId: Number(event.id),
      name: event.name,
      memberIds: await participantIdsOf(db, Number(event.id), states),
    };
  }
  const group = await requireGroup(db, to.group_id);
  const below = to.below ?? false;
  await requireWriteOnTarget(db, access, group, below);
  const roleTypes = to.role_types ?? null;
  return {
    echo: { group_id: Number(group.id), below, role_types: roleTypes, guardians },
    groupId: Number(group.id),
    eventId: null,
    name: group.name,
    memberIds: await memberIdsOf(db, { id: Number(group.id), path: group.path }, below, roleTypes, access.day),
  };
}

const secondsUntil = (moment: number, now: number): number => Math.max(1, Math.ceil((moment - now) / 1000));

/**
 * POST /messages: the recipients resolved now, each address once, the sender never among them
 * (they get one copy); the message, its recipients and its mails in one transaction. Limits: at
 * most MESSAGES_PER_HOUR by the sender in the last 60 minutes, and MAIL_RECIPIENTS_PER_DAY
 * recipients in the tenant's day (a message that would pass it is refused whole); both counted in
 * the database, so every instance sees the same.
 */
export async function sendMessage(db: TenantDb, access: Access, context: MessageContext, input: NewMessage, now = new Date()): Promise<ApiMessage> {
  const { hub, letterhead } = context;
  const target = await resolveTarget(db, access, input.to);
  const senderId = access.personId;
  const addressees = await addresseesOf(db, [...target.memberIds, senderId]);
  const sender = addressees.get(senderId);
  if (!sender) throw errors.unauthenticated();
  const members = target.memberIds.flatMap((id) => addressees.get(id) ?? []);
  const recipients = resolveRecipients(members, target.echo.guardians, access.day, sender);

  const words = MESSAGE_WORDS[letterhead.locale];
  const senderName = `${sender.firstname} ${sender.lastname}`;
  const fromName = headerName(`${headerName(sender.firstname)} ${headerName(sender.lastname)} via ${letterhead.name}`);
  const replies = sender.email === null ? '' : ` ${words.replies(senderName)}`;
  const rendered = new Map<string, { text: string; html: string }>();
  const render = (footer: string) => {
    let mail = rendered.get(footer);
    if (!mail) {
      mail = renderMail({ locale: letterhead.locale, tenantName: letterhead.name, heading: input.subject, body: input.body, footer });
      rendered.set(footer, mail);
    }
    return mail;
  };
  const footerOf = (recipient: Recipient) =>
    (recipient.wardFirstname !== null
      ? words.guardian(recipient.wardFirstname)
      : target.eventId !== null
        ? words.participant(target.name)
        : 'below' in target.echo && target.echo.below
          ? words.memberBelow(target.name)
          : words.member(target.name)) + replies;
  const mailOf = (recipient: Recipient, kind: 'message' | 'message_copy', footer: string): NewMail => ({
    kind,
    userId: recipient.person.id,
    to: { address: recipient.person.email!, name: `${recipient.person.firstname} ${recipient.person.lastname}` },
    fromName,
    replyTo: sender.email,
    subject: input.subject,
    ...render(footer),
  });

  const createdAt = toDbTimestamp(now);
  const { id, mailCount } = await transact(db, actorOf(access), async (trx) => {
    await lockMessageLimits(trx, letterhead.slug);
    const hourAgo = toDbTimestamp(new Date(now.getTime() - HOUR_MS));
    const sent = await sentSince(trx, senderId, hourAgo);
    if (sent.count >= hub.config.messagesPerHour) {
      const oldest = sent.oldest === null ? now.getTime() : Date.parse(toApiTimestamp(sent.oldest));
      throw errors.tooManyAttempts(secondsUntil(oldest + HOUR_MS, now.getTime()));
    }
    const dayStart = startOfDay(access.day, letterhead.timeZone);
    const today = await recipientsSince(trx, toDbTimestamp(dayStart));
    if (today + recipients.length > hub.config.recipientsPerDay) {
      throw errors.tooManyAttempts(secondsUntil(startOfDay(nextDay(access.day), letterhead.timeZone).getTime(), now.getTime()));
    }
    const messageId = await insertMessage(trx, {
      sender_id: senderId,
      subject: input.subject,
      body: input.body,
      target: JSON.stringify(target.echo),
      group_id: target.groupId,
      event_id: target.eventId,
      recipient_count: recipients.length,
      created_at: createdAt,
    });
    const queued = recipients.filter((recipient) => recipient.state === 'queued');
    const mails = queued.map((recipient) => ({ ...mailOf(recipient, 'message', footerOf(recipient)), messageId }));
    const copy =
      sender.email !== null && !sender.failing
        ? [{ ...mailOf({ person: sender, wardFirstname: null, state: 'queued' }, 'message_copy', words.copy(target.name)), messageId }]
        : [];
    const mailIds = await queueMails(trx, hub, [...mails, ...copy], now);
    const mailIdOf = new Map(queued.map((recipient, i) => [recipient, mailIds[i]!]));
    const rows: NewRecipientRow[] = recipients.map((recipient) => ({
      message_id: messageId,
      person_id: recipient.person.id,
      name: `${recipient.person.firstname} ${recipient.person.lastname}`,
      name_key: recipient.person.nameKey,
      email: recipient.person.email,
      state: recipient.state,
      error: recipient.state === 'failed' ? messageMessages.refusedBefore : null,
      mail_id: mailIdOf.get(recipient) ?? null,
    }));
    await insertRecipients(trx, rows);
    return { id: messageId, mailCount: mailIds.length };
  });
  if (mailCount > 0) hub.wake(letterhead.slug);
  const byState = { queued: 0, sent: 0, failed: 0, unreachable: 0 } as Record<string, number>;
  for (const recipient of recipients) byState[recipient.state]! += 1;
  return {
    id,
    subject: input.subject,
    body: input.body,
    sender: { id: senderId, firstname: sender.firstname, lastname: sender.lastname },
    to: target.echo,
    created_at: toApiTimestamp(createdAt),
    counts: countsFrom(byState),
  };
}

const countsFrom = (byState: Record<string, number>): Counts => {
  const [queued, sent, failed, unreachable] = [byState.queued ?? 0, byState.sent ?? 0, byState.failed ?? 0, byState.unreachable ?? 0];
  return { recipients: queued + sent + failed + unreachable, queued, sent, failed, unreachable };
};

const toApiMessage = (row: MessageRow, counts: Record<string, number> | undefined): ApiMessage => ({
  id: Number(row.id),
  subject: row.subject,
  body: row.body,
  sender: row.sender_id === null || row.s_firstname === null ? null : { id: Number(row.sender_id), firstname: row.s_firstname, lastname: row.s_lastname ?? '' },
  to: JSON.parse(row.target) as TargetEcho,
  created_at: toApiTimestamp(row.created_at),
  counts: countsFrom(counts ?? {}),
});

/**
 * GET /messages: with `group_id`, the messages to that group (`write` on it, else 403; those to its
 * whole subtree only with `write` on every group of it, as who could send them); with
 * `event_id`, to that event (its managers; 404 for an event not seen, 403 for others); without,
 * the caller's own. Newest first.
 */
export async function listMessages(db: TenantDb, access: Access, filters: MessageListFilters, limit: number, cursors: CursorCodec): Promise<Page<ApiMessage>> {
  let selection: MessageSelection;
  let list: string;
  if (filters.group_id !== undefined && filters.event_id !== undefined) {
    throw errors.invalidField('event_id', fieldMessages.prohibits('event_id', 'group_id'));
  }
  if (filters.group_id !== undefined) {
    const group = await requireGroup(db, filters.group_id);
    if (!atLeast(access.on(group.path), 'write')) throw errors.unauthorized();
    // Messages to the whole subtree only for who could send them (as GET /messages/{id} reads them).
    selection = { groupId: Number(group.id), withBelow: await writesOnSubtree(db, access, group), readerId: access.personId };
    list = `messages:group:${Number(group.id)}`;
  } else if (filters.event_id !== undefined) {
    const { event, manager } = await requireVisibleEvent(db, access, filters.event_id);
    if (!manager) throw errors.unauthorized();
    selection = { eventId: Number(event.id) };
    list = `messages:event:${Number(event.id)}`;
  } else {
    selection = { senderId: access.personId };
    list = `messages:sender:${access.personId}`;
  }
  const before = filters.cursor === undefined ? null : Number(cursors.decode(list, filters.cursor)[0]);
  const page = cursors.page(list, await listMessageRows(db, selection, before, limit), limit, (row) => [Number(row.id)]);
  const counts = await countsByMessage(db, page.rows.map((row) => Number(row.id)));
  return { rows: page.rows.map((row) => toApiMessage(row, counts.get(Number(row.id)))), nextCursor: page.nextCursor };
}

/** Whether the caller could send to the message's target now: the group's (and with `below` its subtree's) writers, the event's managers. */
async function couldSendTo(db: TenantDb, access: Access, row: MessageRow): Promise<boolean> {
  const target = JSON.parse(row.target) as TargetEcho;
  if ('event_id' in target) {
    const found = await findEventWithGroup(db, target.event_id);
    return found !== undefined && managesGroup(access, found.group);
  }
  try {
    await requireWriteOnTarget(db, access, await requireGroup(db, target.group_id), target.below);
    return true;
  } catch {
    return false;
  }
}

/** GET /messages/{id}: the sender and those who could send to its target; everyone else 404 `Message not found.` */
export async function readMessage(db: TenantDb, access: Access, id: number | null) {
  const row = id === null ? undefined : await findMessage(db, id);
  if (!row) throw messageNotFound();
  const own = row.sender_id !== null && Number(row.sender_id) === access.personId;
  if (!own && !(await couldSendTo(db, access, row))) throw messageNotFound();
  const [counts, recipients] = await Promise.all([countsByMessage(db, [Number(row.id)]), recipientsOf(db, Number(row.id))]);
  return {
    ...toApiMessage(row, counts.get(Number(row.id))),
    recipients: recipients.map((recipient) => ({
      person_id: recipient.person_id === null ? null : Number(recipient.person_id),
      name: recipient.name,
      email: recipient.email,
      state: recipient.state,
      error: recipient.error,
    })),
  };
}

// What other modules use of this module's queries (erasure, in its transaction).
export { forgetMessagesOf } from './queries.js';
