import { useId, useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import { LANGUAGES } from '../i18n/index.js';
import { client } from '../session.js';

type Tenant = NonNullable<Awaited<ReturnType<typeof client.tenant>>['data']>['data']['tenant'];
type Locale = Tenant['locale'];

/** Every IANA time zone the browser knows, the tenant's own among them even if the browser lacks it. */
const zonesWith = (current: string): string[] => {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes(current) ? zones : [current, ...zones].sort();
};

/** The tenant's name, time zone and language (one read: GET /tenant). */
export function TenantSettingsPage() {
  const app = useApp();
  const { words } = app;
  const [tenant] = useLoad(async () => dataOf(app, await client.tenant())?.data.tenant ?? null, []);
  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.tenantSettings}</h1>
      {tenant === null ? <p aria-busy="true">…</p> : <TenantForm tenant={tenant} />}
    </section>
  );
}

function TenantForm({ tenant }: { tenant: Tenant }) {
  const app = useApp();
  const { words, language } = app;
  const [saved, setSaved] = useState(tenant);
  // The current values are the ones selected: a setting changes only when someone chooses another.
  const [fields, setFields] = useState({ name: tenant.name, timezone: tenant.timezone, locale: tenant.locale as Locale });
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const zoneId = useId();
  const save = async (event: Event) => {
    event.preventDefault();
    const changes = {
      ...(fields.name !== saved.name ? { name: fields.name } : {}),
      ...(fields.timezone !== saved.timezone ? { timezone: fields.timezone } : {}),
      ...(fields.locale !== saved.locale ? { locale: fields.locale } : {}),
    };
    if (Object.keys(changes).length > 0) {
      const answer = answerFor(app, await client.tenant.update(changes), setErrors);
      if (!answer) return;
      setSaved(answer.data.tenant);
      // The session's time zone (today's date, times shown) and the tenant's name follow.
      await app.refreshAccess();
    }
    app.announce(words.tenantSaved);
  };
  return (
    <form class="inline-form" onSubmit={save} ref={form} aria-label={words.tenantSettings}>
      <FormErrors errors={errors} shown={['name', 'timezone', 'locale']} />
      <Field label={words.tenantName} name="name" required value={fields.name} errors={errors.name} hint={words.tenantNameHint} onInput={(name) => setFields({ ...fields, name })} />
      {/* A text field with the zones as suggestions: typing "zur" offers Europe/Zurich; the current zone is its value. */}
      <div class="field">
        <label for={zoneId}>{words.timeZone}</label>
        <input
          id={zoneId}
          name="timezone"
          list={`${zoneId}-zones`}
          required
          autocomplete="off"
          spellcheck={false}
          value={fields.timezone}
          aria-invalid={errors.timezone ? 'true' : undefined}
          aria-describedby={`${zoneId}-hint${errors.timezone ? ` ${zoneId}-error` : ''}`}
          onInput={(e) => setFields({ ...fields, timezone: (e.target as HTMLInputElement).value.trim() })}
        />
        <datalist id={`${zoneId}-zones`}>
          {zonesWith(saved.timezone).map((zone) => (
            <option value={zone} />
          ))}
        </datalist>
        <span id={`${zoneId}-hint`} class="muted hint">
          {words.timeZoneHint}
        </span>
        {errors.timezone && (
          <span id={`${zoneId}-error`} class="error">
            {translateApiMessages(errors.timezone, language)}
          </span>
        )}
      </div>
      <label for={`${zoneId}-locale`}>{words.tenantLanguage}</label>
      <select
        id={`${zoneId}-locale`}
        name="locale"
        value={fields.locale}
        aria-invalid={errors.locale ? 'true' : undefined}
        aria-describedby={`${zoneId}-locale-hint${errors.locale ? ` ${zoneId}-locale-error` : ''}`}
        onChange={(e) => setFields({ ...fields, locale: (e.target as HTMLSelectElement).value as Locale })}
      >
        {LANGUAGES.map((code) => (
          <option value={code}>{words.languageName(code)}</option>
        ))}
      </select>
      <span id={`${zoneId}-locale-hint`} class="muted hint">
        {words.tenantLanguageHint}
      </span>
      {errors.locale && (
        <span id={`${zoneId}-locale-error`} class="error">
          {translateApiMessages(errors.locale, language)}
        </span>
      )}
      <div class="actions">
        <button type="submit">{words.save}</button>
      </div>
    </form>
  );
}
