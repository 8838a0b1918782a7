import { useId, useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import { formatMoment } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';
import { ShownOnce } from '../components/shown-once.js';

/** The kinds of change records a webhook may receive (the change feed's entities). */
const ENTITIES = ['person', 'group', 'membership', 'guardianship', 'role_type', 'event', 'participation'] as const;
type Entity = (typeof ENTITIES)[number];
type Webhook = NonNullable<Awaited<ReturnType<typeof client.webhooks.list>>['data']>['data']['webhooks'][number];
type Delivery = NonNullable<Awaited<ReturnType<typeof client.webhooks.deliveries>>['data']>['data']['deliveries'][number];

/** The tenant's webhooks (one page of 50): each changed, tested and its deliveries read in place; a new one below. */
export function WebhooksPage() {
  const app = useApp();
  const { words } = app;
  const [webhooks, reload] = useLoad(async () => dataOf(app, await client.webhooks.list({ limit: 50 }))?.data.webhooks ?? null, []);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>{words.webhooks}</h1>
        <p class="muted">{words.webhooksHint}</p>
        {secret && <ShownOnce label={words.theSecret} warning={words.secretOnce} value={secret} />}
        {webhooks === null ? (
          <p aria-busy="true">…</p>
        ) : webhooks.length === 0 ? (
          <p class="muted">{words.noWebhooks}</p>
        ) : (
          webhooks.map((webhook) => <WebhookCard key={webhook.id} webhook={webhook} onChanged={reload} />)
        )}
      </section>
      <NewWebhook
        onCreated={(created) => {
          setSecret(created);
          reload();
        }}
      />
    </>
  );
}

/** Checkboxes of the kinds of changes; none chosen means every kind (the API's null). */
function EntityChoice({ value, errors, onChange }: { value: Entity[]; errors: string[] | undefined; onChange: (value: Entity[]) => void }) {
  const { words, language } = useApp();
  const hintId = useId();
  return (
    <fieldset class="checklist entities" aria-describedby={hintId}>
      <legend>{words.entities}</legend>
      {ENTITIES.map((entity) => (
        <label class="check" key={entity}>
          <input
            type="checkbox"
            name="entities"
            value={entity}
            checked={value.includes(entity)}
            aria-invalid={errors ? 'true' : undefined}
            onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...value, entity] : value.filter((other) => other !== entity))}
          />
          {words.entityWord(entity)}
        </label>
      ))}
      <span id={hintId} class="muted hint">
        {errors ? <span class="error">{translateApiMessages(errors, language)}</span> : words.entitiesHint}
      </span>
    </fieldset>
  );
}

/** In the API's order, so that an unchanged choice is seen as unchanged. */
const entitiesBody = (chosen: Entity[]): Entity[] | null => (chosen.length === 0 ? null : ENTITIES.filter((entity) => chosen.includes(entity)));

function WebhookCard({ webhook, onChanged }: { webhook: Webhook; onChanged: () => void }) {
  const app = useApp();
  const { words } = app;
  const [fields, setFields] = useState({ url: webhook.url, entities: (webhook.entities ?? []) as Entity[], enabled: webhook.enabled });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [tested, setTested] = useState<string | null>(null);
  const form = useFirstErrorFocus(errors);
  const state = webhook.enabled ? words.webhookOn : webhook.disabled_reason === 'failing' ? words.webhookFailing : words.webhookOff;
  const save = async (event: Event) => {
    event.preventDefault();
    const entities = entitiesBody(fields.entities);
    const changes = {
      ...(fields.url !== webhook.url ? { url: fields.url } : {}),
      ...(JSON.stringify(entities) !== JSON.stringify(webhook.entities) ? { entities } : {}),
      ...(fields.enabled !== webhook.enabled ? { enabled: fields.enabled } : {}),
    };
    if (Object.keys(changes).length > 0 && !answerFor(app, await client.webhooks.update(webhook.id, changes), setErrors)) return;
    app.announce(words.webhookSaved);
    onChanged();
  };
  const test = async () => {
    setTested(null);
    const delivery = dataOf(app, await client.webhooks.ping(webhook.id))?.data.delivery;
    if (delivery) setTested(words.testSent(deliveryOutcome(delivery, words.noAnswer)));
  };
  const remove = async () => {
    if (!confirm(words.confirmDeleteWebhook(webhook.url))) return;
    const result = await client.webhooks.delete(webhook.id);
    if (!result.response.ok) return app.report(troubleOf(result.response, result.error));
    app.announce(words.webhookDeleted);
    onChanged();
  };
  return (
    <details class="webhook">
      <summary>
        <strong class="url">{webhook.url}</strong>{' '}
        <span class="muted">
          · {webhook.entities ? webhook.entities.map((entity) => words.entityWord(entity)).join(', ') : words.everyKind} · {state}
        </span>
      </summary>
      <form class="inline-form" onSubmit={save} ref={form} aria-label={webhook.url}>
        <FormErrors errors={errors} shown={['url', 'entities', 'enabled']} />
        <Field label={words.webhookUrl} name="url" required value={fields.url} errors={errors.url} hint={words.webhookUrlHint} autocomplete="off" onInput={(url) => setFields({ ...fields, url })} />
        <EntityChoice value={fields.entities} errors={errors.entities} onChange={(entities) => setFields({ ...fields, entities })} />
        <label class="check">
          <input type="checkbox" name="enabled" checked={fields.enabled} onChange={(e) => setFields({ ...fields, enabled: (e.target as HTMLInputElement).checked })} />
          {words.webhookEnabled}
        </label>
        <div class="actions">
          <button type="submit">{words.save}</button>
          <button type="button" class="secondary-dark" onClick={() => void test()}>
            {words.sendTest}
          </button>
          {tested && (
            <span class="success" role="status">
              {tested}
            </span>
          )}
        </div>
      </form>
      <Deliveries id={webhook.id} round={tested} />
      <div class="danger-zone">
        <button type="button" class="danger" onClick={() => void remove()}>
          {words.deleteWebhook}
        </button>
      </div>
    </details>
  );
}

/** How a delivery went: the receiver's status code, or its error, or that none came. */
const deliveryOutcome = (delivery: Delivery, noAnswer: string): string =>
  delivery.status_code !== null ? `HTTP ${delivery.status_code}` : (delivery.error ?? noAnswer);

/** The last deliveries, read when asked for (and again after a test while shown). */
function Deliveries({ id, round }: { id: number; round: string | null }) {
  const app = useApp();
  const { words, language, session } = app;
  const [open, setOpen] = useState(false);
  const [deliveries] = useLoad(async () => (open ? (dataOf(app, await client.webhooks.deliveries(id, { limit: 20 }))?.data.deliveries ?? null) : null), [open, round]);
  if (!open) {
    return (
      <button type="button" class="secondary-dark" onClick={() => setOpen(true)}>
        {words.showDeliveries}
      </button>
    );
  }
  return (
    <div class="deliveries">
      <h3>{words.deliveries}</h3>
      {deliveries === null ? (
        <p aria-busy="true">…</p>
      ) : deliveries.length === 0 ? (
        <p class="muted">{words.noDeliveries}</p>
      ) : (
        <ul class="list">
          {deliveries.map((delivery) => (
            <li key={delivery.id}>
              {formatMoment(delivery.at, language, session.timeZone)} · <code>{delivery.type}</code> · {deliveryOutcome(delivery, words.noAnswer)} · {delivery.duration_ms} ms
              {delivery.next_retry_at && ` · ${words.retryAt} ${formatMoment(delivery.next_retry_at, language, session.timeZone)}`}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function NewWebhook({ onCreated }: { onCreated: (secret: string) => void }) {
  const app = useApp();
  const { words } = app;
  const [url, setUrl] = useState('');
  const [entities, setEntities] = useState<Entity[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const create = async (event: Event) => {
    event.preventDefault();
    const chosen = entitiesBody(entities);
    const created = answerFor(app, await client.webhooks.create({ url, ...(chosen ? { entities: chosen } : {}) }), setErrors);
    if (!created) return;
    setUrl('');
    setEntities([]);
    app.announce(words.webhookCreated);
    onCreated(created.data.webhook.secret);
  };
  return (
    <form class="card" onSubmit={create} ref={form} aria-labelledby="new-webhook">
      <h2 id="new-webhook">{words.newWebhook}</h2>
      <FormErrors errors={errors} shown={['url', 'entities']} />
      <Field label={words.webhookUrl} name="url" required value={url} errors={errors.url} hint={words.webhookUrlHint} autocomplete="off" onInput={setUrl} />
      <EntityChoice value={entities} errors={errors.entities} onChange={setEntities} />
      <div class="actions">
        <button type="submit">{words.createWebhook}</button>
      </div>
    </form>
  );
}
