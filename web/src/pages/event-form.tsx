import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, validationErrors, YesNo, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessage, translateApiMessages } from '../i18n/api-messages.js';
import { formatDate, formatMoment, isoToZoned, zonedToIso, type Words } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';

type ApiEvent = NonNullable<Awaited<ReturnType<typeof client.events.get>>['data']>['data']['event'];
type NewEvent = Parameters<typeof client.events.create>[0];
type EventChanges = Parameters<typeof client.events.update>[1];

/** The event as its form holds it: every text as typed (times in the tenant's zone), the yes/no questions answered. */
interface EventForm {
  name: string;
  description: string;
  location: string;
  starts_at: string;
  ends_at: string;
  registration_opens_at: string;
  registration_closes_at: string;
  capacity: string;
  waiting_list: boolean;
  requires_approval: boolean;
}
type EventKey = keyof EventForm;

const MOMENTS = ['starts_at', 'ends_at', 'registration_opens_at', 'registration_closes_at'] as const;
type Word = { [K in keyof Words]: Words[K] extends string ? K : never }[keyof Words];
/** Every field the events API takes (but `group_id`: an event stays in its group), in the form's order. */
const LABELS: Record<EventKey, Word> = {
  name: 'name',
  description: 'description',
  location: 'location',
  starts_at: 'startsAt',
  ends_at: 'endsAt',
  registration_opens_at: 'registrationOpens',
  registration_closes_at: 'registrationCloses',
  capacity: 'capacity',
  waiting_list: 'waitingListQuestion',
  requires_approval: 'approvalQuestion',
};
const KEYS = Object.keys(LABELS) as EventKey[];

/** A new event's form: the API's defaults for the questions (a waiting list, no approval). */
const BLANK: EventForm = {
  name: '',
  description: '',
  location: '',
  starts_at: '',
  ends_at: '',
  registration_opens_at: '',
  registration_closes_at: '',
  capacity: '',
  waiting_list: true,
  requires_approval: false,
};

function formOf(event: ApiEvent, timeZone: string): EventForm {
  const moment = (iso: string | null) => (iso === null ? '' : isoToZoned(iso, timeZone));
  return {
    name: event.name,
    description: event.description ?? '',
    location: event.location ?? '',
    starts_at: moment(event.starts_at),
    ends_at: moment(event.ends_at),
    registration_opens_at: moment(event.registration_opens_at),
    registration_closes_at: moment(event.registration_closes_at),
    capacity: event.capacity === null ? '' : String(event.capacity),
    waiting_list: event.waiting_list,
    requires_approval: event.requires_approval,
  };
}

/**
 * A field's value as the API takes it: an emptied text or time is null (no limit, no window), a
 * time is read in the tenant's zone; a capacity that is no whole number goes as typed, so that
 * the API's message names the field.
 */
function apiValue(key: EventKey, form: EventForm, timeZone: string): unknown {
  const value = form[key];
  if (typeof value !== 'string' || key === 'name') return value;
  if (value.trim() === '') return null;
  if ((MOMENTS as readonly string[]).includes(key)) return zonedToIso(value, timeZone);
  if (key === 'capacity') return /^\d{1,10}$/.test(value.trim()) ? Number(value) : value;
  return value;
}

/** The start and the end are needed: said beside the field in the API's own words, without asking it. */
function missingTimes(form: EventForm): FieldErrors {
  const missing: FieldErrors = {};
  if (form.starts_at === '') missing.starts_at = ['The starts at field is required.'];
  if (form.ends_at === '') missing.ends_at = ['The ends at field is required.'];
  return missing;
}

/** The event as read, with the version a change or a deletion must start from. */
interface Read {
  event: ApiEvent | null;
  etag: string | undefined;
}

/**
 * Creating an event in a group, editing one, or copying one as a new event (the create form
 * filled from it, the name marked as a copy, the dates kept for the leader to change). One
 * request to show it (the event edited or copied; none for a new one). Editing sends only what
 * changed, with the version read: a change made meanwhile by someone else is said, never
 * overwritten.
 */
export function EventFormPage({ groupId, eventId, copyOf }: { groupId?: number; eventId?: number; copyOf?: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const sourceId = eventId ?? copyOf;
  const [loaded, reload] = useLoad(async (): Promise<Read | null> => {
    if (sourceId === undefined) return { event: null, etag: undefined };
    const result = await client.events.get(sourceId);
    const data = dataOf(app, result);
    return data && { event: data.data.event, etag: result.response.headers.get('ETag') ?? undefined };
  }, [sourceId]);
  const [read, setRead] = useState<Read | null>(null);
  const [form, setForm] = useState<EventForm | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  // Changes refused because someone else changed the event first: said, never dropped in silence.
  const [notSaved, setNotSaved] = useState<string[] | null>(null);
  const saving = useRef(false);
  const [busy, setBusy] = useState(false);
  const formRef = useFirstErrorFocus(errors);
  const descriptionId = useId();
  useEffect(() => {
    if (!loaded) return;
    setRead(loaded);
    if (!loaded.event) return setForm(BLANK);
    const filled = formOf(loaded.event, session.timeZone);
    setForm(copyOf === undefined ? filled : { ...filled, name: words.copyName(loaded.event.name) });
  }, [loaded]);

  if (!read || !form) return <p aria-busy="true">…</p>;
  const original = read.event;
  const editing = eventId !== undefined && original !== null;
  const group = original?.group_id ?? groupId!;
  const groupName = session.access.groups.get(group)?.name ?? `#${group}`;
  const change = <K extends EventKey>(key: K, value: EventForm[K]) => setForm({ ...form, [key]: value });
  const shown = (key: EventKey, value: unknown) => {
    const text = value === true ? words.yes : value === false ? words.no : value === null ? words.empty : String(value);
    return `${words[LABELS[key]]}: ${(MOMENTS as readonly string[]).includes(key) && value !== null ? formatMoment(String(value), language, session.timeZone) : text}`;
  };

  const create = async () => {
    const body = Object.fromEntries(KEYS.map((key) => [key, apiValue(key, form, session.timeZone)]));
    // As typed: the API names what it refuses beside the field.
    const created = answerFor(app, await client.events.create({ ...body, group_id: group } as NewEvent), setErrors);
    if (created) app.announce(words.eventCreated, `/events/${created.data.event.id}`);
  };
  const update = async (event: ApiEvent) => {
    const before = formOf(event, session.timeZone);
    // Only what the form changed: a write never overwrites what it did not touch.
    const changes = Object.fromEntries(KEYS.filter((key) => form[key] !== before[key]).map((key) => [key, apiValue(key, form, session.timeZone)]));
    if (Object.keys(changes).length === 0) return app.announce(words.saved, `/events/${event.id}`);
    const result = await client.events.update(event.id, changes as EventChanges, read.etag);
    if (result.data) return app.announce(words.eventSaved(result.data.data.event.name), `/events/${event.id}`);
    if (result.response.status === 412) {
      setErrors({});
      setNotSaved(Object.entries(changes).map(([key, value]) => shown(key as EventKey, value)));
      return reload();
    }
    const refused = validationErrors(result.response, result.error);
    if (refused) setErrors(refused);
    else app.report(troubleOf(result.response, result.error));
  };
  const save = async (event: Event) => {
    event.preventDefault();
    // A second press while the first is on its way would create the event twice.
    if (saving.current) return;
    const missing = missingTimes(form);
    if (Object.keys(missing).length > 0) return setErrors(missing);
    saving.current = true;
    setBusy(true);
    try {
      await (editing ? update(original) : create());
    } finally {
      saving.current = false;
      setBusy(false);
    }
  };

  const title = editing ? words.editEventTitle(original.name) : original ? words.copyEventTitle(original.name) : words.eventFormTitleNew;
  const text = (key: 'name' | 'location' | 'capacity', options: { required?: boolean; numeric?: boolean } = {}) => (
    <Field
      label={words[LABELS[key]]}
      name={key === 'name' ? 'event_name' : key}
      value={form[key]}
      errors={errors[key]}
      required={options.required}
      inputMode={options.numeric ? 'numeric' : undefined}
      autocomplete="off"
      onInput={(value) => change(key, value)}
    />
  );
  const moment = (key: (typeof MOMENTS)[number]) => (
    <Field
      label={words.inTimeZone(words[LABELS[key]], session.timeZone)}
      name={key}
      type="datetime-local"
      required={key === 'starts_at' || key === 'ends_at'}
      value={form[key]}
      errors={errors[key]}
      onInput={(value) => change(key, value)}
    />
  );
  const answer = (key: 'waiting_list' | 'requires_approval') => (
    <YesNo legend={words[LABELS[key]]} name={key} value={form[key]} errors={errors[key]} onChange={(value) => change(key, value)} />
  );
  const back = original ? `#/events/${original.id}` : `#/groups/${group}`;

  return (
    <>
      <form class="card" ref={formRef} onSubmit={save} noValidate aria-labelledby="event-form-title">
        <p class="muted">
          <a href={`#/groups/${group}`}>{words.inGroup(groupName)}</a>
        </p>
        <h1 id="event-form-title" tabIndex={-1}>
          {title}
        </h1>
        {original && !editing && <p class="notice">{words.copyHint}</p>}
        {notSaved && (
          <div class="notice" role="alert">
            <p>{words.eventChangedMeanwhile}</p>
            <p>{words.notSavedEnterAgain}</p>
            <ul class="list">
              {notSaved.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
        )}
        <FormErrors errors={errors} shown={KEYS} />
        {text('name', { required: true })}
        <div class="field">
          <label for={descriptionId}>{words.description}</label>
          <textarea
            id={descriptionId}
            name="description"
            rows={4}
            value={form.description}
            aria-invalid={errors.description ? 'true' : undefined}
            aria-describedby={errors.description ? `${descriptionId}-error` : undefined}
            onInput={(e) => change('description', (e.target as HTMLTextAreaElement).value)}
          />
          {errors.description && (
            <span id={`${descriptionId}-error`} class="error">
              {translateApiMessages(errors.description, language)}
            </span>
          )}
        </div>
        {text('location')}
        <div class="field-row">
          {moment('starts_at')}
          {moment('ends_at')}
        </div>
        <fieldset class="group-of-fields">
          <legend>{words.registrationWindow}</legend>
          <p class="muted">{words.registrationWindowHint}</p>
          <div class="field-row">
            {moment('registration_opens_at')}
            {moment('registration_closes_at')}
          </div>
        </fieldset>
        {text('capacity', { numeric: true })}
        <p class="muted">{words.capacityHint}</p>
        {answer('waiting_list')}
        {answer('requires_approval')}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {editing ? words.save : words.create}
          </button>
          <a href={back}>{words.cancel}</a>
        </div>
      </form>
      {editing && <DeleteEvent event={original} etag={read.etag} onChanged={reload} />}
    </>
  );
}

/** Deleting the event: asked first, naming it; a refusal (registrations left) shows the API's reason beside the button. */
function DeleteEvent({ event, etag, onChanged }: { event: ApiEvent; etag: string | undefined; onChanged: () => void }) {
  const app = useApp();
  const { words, language, session } = app;
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    if (!confirm(words.confirmDeleteEvent(event.name, formatDate(event.starts_at, language, session.timeZone)))) return;
    setBusy(true);
    setRefusal(null);
    try {
      const result = await client.events.delete(event.id, etag);
      if (result.response.ok) return app.announce(words.eventDeleted(event.name), `/groups/${event.group_id}`);
      const trouble = troubleOf(result.response, result.error);
      if (trouble.kind !== 'refused') return app.report(trouble);
      setRefusal(words.notDeleted(translateApiMessage(trouble.message, language)));
      // Changed meanwhile: the page shows the event as it is now.
      if (result.response.status === 412) onChanged();
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="delete-event-title">
      <h2 id="delete-event-title">{words.deleteEvent}</h2>
      <p class="muted">{words.deleteEventHint}</p>
      {refusal && (
        <p class="error" role="alert">
          {refusal}
        </p>
      )}
      <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
        {words.deleteEvent}
      </button>
    </section>
  );
}
