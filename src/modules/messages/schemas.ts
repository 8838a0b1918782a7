import Type, { type Static } from 'typebox';
import { PagingQuery } from '../../http/paging.js';
import { Timestamp } from '../../http/schemas.js';
import { compileObjectValidator, StoredText, type Validation } from '../../lib/validation.js';
import { fieldMessages, type FieldErrors } from '../../errors.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const State = Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('waitlisted'), Type.Literal('rejected'), Type.Literal('cancelled')]);
const Guardians = Type.Union([Type.Literal('include'), Type.Literal('only'), Type.Literal('none')], {
  description:
    'include (default): the members, and for members without an e-mail or under 18 their guardians; only: the guardians of the members alone; none: the members alone',
});

export const GroupTargetSchema = Type.Object(
  {
    group_id: Id,
    below: Type.Optional(Type.Boolean({ description: 'Members of every group below too (write on each needed); default false' })),
    role_types: Type.Optional(Type.Array(StoredText({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Only memberships of these role types' })),
    guardians: Type.Optional(Guardians),
  },
);

export const EventTargetSchema = Type.Object(
  {
    event_id: Id,
    states: Type.Optional(Type.Array(State, { minItems: 1, maxItems: 5, uniqueItems: true, description: 'The participations in these states; default ["accepted"]' })),
    guardians: Type.Optional(Guardians),
  },
);

export const NewMessageSchema = Type.Object({
  subject: StoredText({ minLength: 1, maxLength: 255, description: 'One line' }),
  body: StoredText({ minLength: 1, maxLength: 20_000, description: 'Plain text: blank lines part paragraphs, bare http(s) links become clickable' }),
  to: Type.Union([GroupTargetSchema, EventTargetSchema], { description: 'A group (its members active today) or an event (its participations)' }),
});
export type GroupTarget = Static<typeof GroupTargetSchema>;
export type EventTarget = Static<typeof EventTargetSchema>;
export interface NewMessage {
  subject: string;
  body: string;
  to: GroupTarget | EventTarget;
}

/** `to` as answers echo it: every default filled. */
export const TargetEchoSchema = Type.Union([
  Type.Object({
    group_id: Type.Integer(),
    below: Type.Boolean(),
    role_types: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null when not given' }),
    guardians: Guardians,
  }),
  Type.Object({ event_id: Type.Integer(), states: Type.Array(State), guardians: Guardians }),
]);
export type TargetEcho = Static<typeof TargetEchoSchema>;

export const CountsSchema = Type.Object({
  recipients: Type.Integer({ description: 'queued + sent + failed + unreachable' }),
  queued: Type.Integer(),
  sent: Type.Integer(),
  failed: Type.Integer(),
  unreachable: Type.Integer({ description: 'People with neither an e-mail nor a guardian with one' }),
});
export type Counts = Static<typeof CountsSchema>;

const messageFields = {
  id: Type.Integer(),
  subject: Type.String(),
  body: Type.String(),
  sender: Type.Union([Type.Object({ id: Type.Integer(), firstname: Type.String(), lastname: Type.String() }), Type.Null()], {
    description: 'null once the sender is erased',
  }),
  to: TargetEchoSchema,
  created_at: Timestamp,
  counts: CountsSchema,
};

export const MessageSchema = Type.Object(messageFields);
export type ApiMessage = Static<typeof MessageSchema>;

export const RecipientSchema = Type.Object({
  person_id: Type.Union([Type.Integer(), Type.Null()], { description: "A guardian's entry carries the guardian's id; null once erased" }),
  name: Type.String({ description: '[erased] once erased' }),
  email: Type.Union([Type.String(), Type.Null()]),
  state: Type.Union([Type.Literal('queued'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('unreachable')]),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const MessageWithRecipientsSchema = Type.Object({ ...messageFields, recipients: Type.Array(RecipientSchema) });

export const MessageListQuery = Type.Object(
  {
    group_id: Type.Optional(Id),
    event_id: Type.Optional(Id),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type MessageListFilters = Static<typeof MessageListQuery>;

export const messageMessages = {
  subjectLineBreaks: 'The subject field must not contain line breaks.',
  refusedBefore: 'The e-mail address was refused before.',
  notFound: 'Message not found.',
} as const;

const checkOuter = compileObjectValidator<{ subject: string; body: string; to: Record<string, unknown> }>(
  Type.Object({ subject: NewMessageSchema.properties.subject, body: NewMessageSchema.properties.body, to: Type.Object({}) }),
);
const checkGroupTarget = compileObjectValidator<GroupTarget>(GroupTargetSchema);
const checkEventTarget = compileObjectValidator<EventTarget>(EventTargetSchema);

const pickTarget = (to: GroupTarget | EventTarget): GroupTarget | EventTarget =>
  'event_id' in to
    ? { event_id: to.event_id, ...(to.states !== undefined ? { states: to.states } : {}), ...(to.guardians !== undefined ? { guardians: to.guardians } : {}) }
    : {
        group_id: to.group_id,
        ...(to.below !== undefined ? { below: to.below } : {}),
        ...(to.role_types !== undefined ? { role_types: to.role_types } : {}),
        ...(to.guardians !== undefined ? { guardians: to.guardians } : {}),
      };

/**
 * POST /messages' body: `to` is read as an event's target when it names `event_id`, else as a
 * group's, so that its errors name the fields of that form (`to.group_id`, `to.states.0`).
 */
export function checkMessageBody(body: unknown): Validation<NewMessage> {
  const outer = checkOuter(body);
  const given = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const fieldErrors: FieldErrors = outer.ok ? {} : { ...outer.fieldErrors };
  const to = given.to;
  let target: GroupTarget | EventTarget | undefined;
  if (typeof to === 'object' && to !== null && !Array.isArray(to)) {
    if ('event_id' in to && 'group_id' in to) {
      fieldErrors['to.event_id'] = [fieldMessages.prohibits('to.event_id', 'to.group_id')];
    } else {
      const checked = 'event_id' in to ? checkEventTarget(to) : checkGroupTarget(to);
      // Only the fields of the form: another field a client sends along is let through, as everywhere.
      if (checked.ok) target = pickTarget(checked.value);
      else for (const [field, messages] of Object.entries(checked.fieldErrors)) fieldErrors[`to.${field}`] = messages;
    }
  }
  if (typeof given.subject === 'string' && /[\r\n\u2028\u2029\u0085]/.test(given.subject) && !fieldErrors.subject) {
    fieldErrors.subject = [messageMessages.subjectLineBreaks];
  }
  if (Object.keys(fieldErrors).length > 0 || target === undefined) {
    // In the body's order: subject, body, then the fields of `to`.
    const rank = (field: string) => ['subject', 'body', 'to'].indexOf(field.split('.')[0]!);
    return { ok: false, fieldErrors: Object.fromEntries(Object.entries(fieldErrors).sort(([a], [b]) => rank(a) - rank(b))) };
  }
  return { ok: true, value: { subject: given.subject as string, body: given.body as string, to: target } };
}
