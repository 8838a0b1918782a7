import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp, type Session } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessage, translateApiMessages } from '../i18n/api-messages.js';
import { roleTypeLabel } from '../i18n/index.js';
import type { Permission } from '../permissions.js';
import { client, troubleOf } from '../session.js';

/** Whether the person signed in administers the whole tenant (`admin` on the root group): who sees these pages. */
export function isRootAdmin(session: Session): boolean {
  const root = [...session.access.groups.values()].find((group) => group.parent_id === null);
  return root !== undefined && session.access.atLeast(root.id, 'admin');
}

/** The administrators' start page: what they may set for the whole tenant. */
export function AdminPage() {
  const { words } = useApp();
  return (
    <section class="card">
      <h1 tabIndex={-1}>{words.administration}</h1>
      <p class="muted">{words.administrationHint}</p>
      <ul class="list">
        <li><a href="#/admin/role-types">{words.roleTypes}</a></li>
        <li><a href="#/admin/tenant">{words.tenantSettings}</a></li>
        <li><a href="#/admin/webhooks">{words.webhooks}</a></li>
        <li><a href="#/tokens">{words.apiTokens}</a></li>
      </ul>
    </section>
  );
}

const PERMISSIONS: Permission[] = ['none', 'read', 'write', 'admin'];
const SCOPES = ['group', 'subtree'] as const;
type Scope = (typeof SCOPES)[number];
type RoleType = { key: string; label: string; permission: Permission; scope: Scope };

/** The catalogue of role types: each one changed or deleted in place, a new one below. */
export function RoleTypesPage() {
  const app = useApp();
  const { words } = app;
  const [roles, reload] = useLoad(async () => dataOf(app, await client.roleTypes.list())?.data.role_types ?? null, []);
  /** After a change the session's role types (and so the permissions the app works out) are the new ones. */
  const changed = async () => {
    reload();
    await app.refreshAccess();
  };
  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>{words.roleTypes}</h1>
        <p class="muted">{words.roleTypesHint}</p>
        {roles === null ? <p aria-busy="true">…</p> : roles.map((role) => <RoleTypeCard key={role.key} role={role as RoleType} onChanged={changed} />)}
      </section>
      <NewRoleType onCreated={changed} />
    </>
  );
}

/** The permission and scope pickers of a role type's form: nothing preselected for a new one. */
function RoleChoices({ value, errors, onChange }: { value: { permission: string; scope: string }; errors: FieldErrors; onChange: (value: { permission: string; scope: string }) => void }) {
  const { words } = useApp();
  const id = useId();
  return (
    <>
      <Choice id={`${id}-permission`} label={words.permission} name="permission" value={value.permission} errors={errors.permission} onChange={(permission) => onChange({ ...value, permission })}>
        <option value="">{words.choosePermission}</option>
        {PERMISSIONS.map((permission) => (
          <option value={permission}>{words.permissionWord(permission)}</option>
        ))}
      </Choice>
      <Choice id={`${id}-scope`} label={words.scope} name="scope" value={value.scope} errors={errors.scope} onChange={(scope) => onChange({ ...value, scope })}>
        <option value="">{words.chooseScope}</option>
        {SCOPES.map((scope) => (
          <option value={scope}>{words.scopeWord(scope)}</option>
        ))}
      </Choice>
    </>
  );
}

/** A required select with its label, and the API's messages about it right below (like Field). */
function Choice(props: { id: string; label: string; name: string; value: string; errors: string[] | undefined; onChange: (value: string) => void; children: ComponentChildren }) {
  const { language } = useApp();
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        name={props.name}
        required
        value={props.value}
        aria-invalid={props.errors ? 'true' : undefined}
        aria-describedby={props.errors ? `${props.id}-error` : undefined}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {props.children}
      </select>
      {props.errors && (
        <span id={`${props.id}-error`} class="error">
          {translateApiMessages(props.errors, language)}
        </span>
      )}
    </div>
  );
}

function RoleTypeCard({ role, onChanged }: { role: RoleType; onChanged: () => Promise<void> }) {
  const app = useApp();
  const { words, language } = app;
  const shownLabel = roleTypeLabel(role, language);
  const [fields, setFields] = useState({ label: role.label, permission: role.permission as string, scope: role.scope as string });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const form = useFirstErrorFocus(errors);
  const save = async (event: Event) => {
    event.preventDefault();
    const changes = {
      ...(fields.label !== role.label ? { label: fields.label } : {}),
      ...(fields.permission !== role.permission ? { permission: fields.permission as Permission } : {}),
      ...(fields.scope !== role.scope ? { scope: fields.scope as Scope } : {}),
    };
    if (Object.keys(changes).length > 0 && !answerFor(app, await client.roleTypes.update(role.key, changes), setErrors)) return;
    app.announce(words.roleTypeSaved(fields.label || role.key));
    await onChanged();
  };
  const remove = async () => {
    if (!confirm(words.confirmDeleteRoleType(shownLabel))) return;
    setRefusal(null);
    const result = await client.roleTypes.delete(role.key);
    if (result.response.ok) {
      app.announce(words.roleTypeDeleted(shownLabel));
      return onChanged();
    }
    const trouble = troubleOf(result.response, result.error);
    if (trouble.kind !== 'refused') return app.report(trouble);
    // The API says what keeps the role type (a membership still uses it), in the reader's language.
    setRefusal(words.roleTypeNotDeleted(translateApiMessage(trouble.message, language)));
  };
  return (
    <details class="role-type">
      <summary>
        <strong>{shownLabel}</strong> <span class="muted">({role.key}) · {words.permissionWord(role.permission)} · {words.scopeWord(role.scope)}</span>
      </summary>
      <form class="inline-form" onSubmit={save} ref={form} aria-label={words.editRoleType(shownLabel)}>
        <FormErrors errors={errors} shown={['label', 'permission', 'scope']} />
        <Field label={words.roleLabel} name="label" value={fields.label} errors={errors.label} onInput={(label) => setFields({ ...fields, label })} />
        <RoleChoices value={fields} errors={errors} onChange={(choice) => setFields({ ...fields, ...choice })} />
        <button type="submit">{words.save}</button>
      </form>
      <div class="danger-zone">
        {refusal && (
          <p class="error" role="alert">
            {refusal}
          </p>
        )}
        <button type="button" class="danger" onClick={() => void remove()}>
          {words.deleteRoleType}
        </button>
      </div>
    </details>
  );
}

function NewRoleType({ onCreated }: { onCreated: () => Promise<void> }) {
  const app = useApp();
  const { words } = app;
  const empty = { key: '', label: '', permission: '', scope: '' };
  const [fields, setFields] = useState(empty);
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const create = async (event: Event) => {
    event.preventDefault();
    const body = { key: fields.key, permission: fields.permission as Permission, scope: fields.scope as Scope, ...(fields.label !== '' ? { label: fields.label } : {}) };
    const created = answerFor(app, await client.roleTypes.create(body), setErrors);
    if (!created) return;
    setFields(empty);
    app.announce(words.roleTypeCreated(created.data.role_type.label || created.data.role_type.key));
    await onCreated();
  };
  return (
    <form class="card" onSubmit={create} ref={form} aria-labelledby="new-role-type">
      <h2 id="new-role-type">{words.newRoleType}</h2>
      <FormErrors errors={errors} shown={['key', 'label', 'permission', 'scope']} />
      <Field label={words.roleKey} name="key" required value={fields.key} errors={errors.key} hint={words.roleKeyHint} autocomplete="off" onInput={(key) => setFields({ ...fields, key })} />
      <Field label={words.roleLabel} name="label" value={fields.label} errors={errors.label} onInput={(label) => setFields({ ...fields, label })} />
      <RoleChoices value={fields} errors={errors} onChange={(choice) => setFields({ ...fields, ...choice })} />
      <div class="actions">
        <button type="submit">{words.create}</button>
      </div>
    </form>
  );
}
