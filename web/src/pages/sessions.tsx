import { useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';

/** The name every browser sign-in's token carries. */
const WEB_SESSION = 'web session';

/**
 * Where I am signed in (task: "see my sessions and end the others"): every browser session, this
 * one marked; signing out another ends its token at once. API tokens are not sessions and stay.
 */
export function SessionsPage() {
  const app = useApp();
  const { words, language, session } = app;
  const [tokens, reload] = useLoad(async () => dataOf(app, await client.tokens.list())?.data.tokens ?? null, []);
  const [done, setDone] = useState<string | null>(null);
  if (!tokens) return <p aria-busy="true">…</p>;
  const sessions = tokens.filter((token) => token.name === WEB_SESSION);
  const others = sessions.filter((token) => token.id !== session.tokenId);
  const when = (moment: string | null) => (moment === null ? '–' : formatMoment(moment, language, session.timeZone));

  const end = async (ids: number[], question: string) => {
    if (!confirm(question)) return;
    for (const id of ids) {
      const result = await client.tokens.revoke(id);
      // 204 and no body; 404: signed out already (by itself, or another tab).
      if (!result.response.ok && result.response.status !== 404) return app.report(troubleOf(result.response, result.error));
    }
    setDone(words.signedOutElsewhere);
    reload();
  };

  return (
    <section class="card" aria-labelledby="sessions-title">
      <h1 id="sessions-title" tabIndex={-1}>
        {words.sessions}
      </h1>
      <p class="muted">{words.sessionsHint}</p>
      <ul class="list sessions">
        {sessions.map((token) => (
          <li key={token.id}>
            <strong>{token.id === session.tokenId ? words.thisDevice : words.otherDevice}</strong>
            <span class="muted">
              {' '}
              · {words.signedInAt} {when(token.created_at)} · {words.lastUsed} {when(token.last_used_at)}
            </span>
            {token.id !== session.tokenId && (
              <button type="button" class="link" onClick={() => end([token.id], words.confirmSignOutDevice)}>
                {words.signOutDevice}
              </button>
            )}
          </li>
        ))}
      </ul>
      {others.length > 0 && (
        <button type="button" onClick={() => end(others.map((token) => token.id), words.confirmSignOutOthers(others.length))}>
          {words.signOutOthers}
        </button>
      )}
      {done && (
        <p class="success" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
