import { useId, useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { ShownOnce } from '../components/shown-once.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import { formatDate, formatMoment, zonedToIso } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';

/** What a token may be allowed to do, as the API knows them (src/http/abilities.ts); `*` first. */
export const ABILITIES = [
  '*', 'user:read', 'user:write', 'tokens:read', 'tokens:write', 'people:read', 'people:write', 'groups:read', 'groups:write', 'roles:write',
  'events:read', 'events:write', 'changes:read', 'webhooks:write', 'tenant:write', 'messages:write',
] as const;
type Ability = (typeof ABILITIES)[number];

/** The tokens of the browser's sessions: the sessions page lists them, this one the tokens of programs. */
const SESSION_TOKEN_NAME = 'web session';

/**
 * The reader's API tokens: listed, made (with abilities and an expiry, shown once), revoked. Every
 * user may have tokens of their own, so the page is for everyone who signs in.
 */
export function TokensPage() {
  const app = useApp();
  const { words, language, session } = app;
  const [tokens, reload] = useLoad(async () => dataOf(app, await client.tokens.list())?.data.tokens.filter((token) => token.name !== SESSION_TOKEN_NAME) ?? null, []);
  const [issued, setIssued] = useState<{ name: string; token: string } | null>(null);
  const revoke = async (token: { id: number; name: string }) => {
    if (!confirm(words.confirmRevokeToken(token.name))) return;
    const result = await client.tokens.revoke(token.id);
    if (!result.response.ok) return app.report(troubleOf(result.response, result.error));
    app.announce(words.tokenRevoked(token.name));
    reload();
  };
  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>{words.apiTokens}</h1>
        <p class="muted">{words.apiTokensHint}</p>
        {issued && <ShownOnce label={words.theToken} warning={words.tokenOnce} value={issued.token} />}
        {tokens === null ? (
          <p aria-busy="true">…</p>
        ) : tokens.length === 0 ? (
          <p class="muted">{words.noTokens}</p>
        ) : (
          <ul class="list tokens">
            {tokens.map((token) => (
              <li key={token.id} aria-label={token.name}>
                <strong>{token.name}</strong>
                <span class="muted">
                  {' '}
                  · {token.abilities.map((ability) => words.abilityWord(ability)).join(', ')}
                  {' · '}
                  {words.created} {formatDate(token.created_at, language, session.timeZone)}
                  {token.expires_at && ` · ${words.expires} ${formatDate(token.expires_at, language, session.timeZone)}`}
                  {' · '}
                  {token.last_used_at ? `${words.lastUsed} ${formatMoment(token.last_used_at, language, session.timeZone)}` : words.neverUsed}
                </span>{' '}
                <button type="button" class="link" aria-label={`${words.revoke}: ${token.name}`} onClick={() => void revoke(token)}>
                  {words.revoke}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <NewToken
        onCreated={(name, token) => {
          setIssued({ name, token });
          reload();
        }}
      />
    </>
  );
}

function NewToken({ onCreated }: { onCreated: (name: string, token: string) => void }) {
  const app = useApp();
  const { words, language, session } = app;
  const [name, setName] = useState('');
  // No ability is preselected: the API would grant everything to a token asked for without any.
  const [abilities, setAbilities] = useState<Ability[]>([]);
  const [expiresOn, setExpiresOn] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const errorId = useId();
  const create = async (event: Event) => {
    event.preventDefault();
    if (abilities.length === 0) return setErrors({ abilities: [words.chooseAbility] });
    // Valid up to and including the chosen day, in the tenant's time zone.
    const body = { name, abilities, ...(expiresOn !== '' ? { expires_at: zonedToIso(`${expiresOn}T23:59`, session.timeZone) } : {}) };
    const created = answerFor(app, await client.tokens.create(body), setErrors);
    if (!created) return;
    setName('');
    setAbilities([]);
    setExpiresOn('');
    app.announce(words.tokenCreated(name));
    onCreated(name, created.data.plainTextToken);
  };
  const toggle = (ability: Ability, on: boolean) => setAbilities(on ? [...abilities, ability] : abilities.filter((a) => a !== ability));
  return (
    <form class="card" onSubmit={create} ref={form} aria-labelledby="new-token">
      <h2 id="new-token">{words.newToken}</h2>
      <FormErrors errors={errors} shown={['name', 'abilities', 'expires_at']} />
      <Field label={words.tokenName} name="name" required value={name} errors={errors.name} autocomplete="off" onInput={setName} />
      <fieldset class="checklist abilities" aria-describedby={errors.abilities ? errorId : undefined}>
        <legend>{words.abilities}</legend>
        {ABILITIES.map((ability) => (
          <label class="check" key={ability}>
            <input
              type="checkbox"
              name="abilities"
              value={ability}
              checked={abilities.includes(ability)}
              aria-invalid={errors.abilities ? 'true' : undefined}
              aria-describedby={errors.abilities ? errorId : undefined}
              onChange={(e) => toggle(ability, (e.target as HTMLInputElement).checked)}
            />
            {words.abilityWord(ability)} <code class="muted">{ability}</code>
          </label>
        ))}
        {errors.abilities && (
          <span id={errorId} class="error">
            {translateApiMessages(errors.abilities, language)}
          </span>
        )}
      </fieldset>
      <Field label={words.expiresOn} name="expires_on" type="date" min={session.today} value={expiresOn} errors={errors.expires_at} hint={words.expiresOnHint} onInput={setExpiresOn} />
      <div class="actions">
        <button type="submit">{words.createToken}</button>
      </div>
    </form>
  );
}
