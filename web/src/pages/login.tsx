import { useState } from 'preact/hooks';
import type { Words } from '../i18n/index.js';
import { client, troubleOf, type Trouble } from '../session.js';

interface Props {
  words: Words;
  /** Logged in: the app loads who this is and what they may do. */
  onLoggedIn: () => Promise<void>;
  onTrouble: (trouble: Trouble) => void;
}

export function LoginPage({ words, onLoggedIn, onTrouble }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailed(false);
    try {
      const result = await client.signIn(username, password, remember);
      if (result.response.status === 401) return setFailed(true);
      if (!result.data) return onTrouble(troubleOf(result.response));
      await onLoggedIn();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit}>
      <h1 tabIndex={-1}>{words.login}</h1>
      <label>
        {words.username}
        <input name="username" autocomplete="username" required value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        {words.password}
        <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
      </label>
      <label class="check">
        <input type="checkbox" name="remember" checked={remember} onChange={(e) => setRemember((e.target as HTMLInputElement).checked)} />
        {words.staySignedIn}
      </label>
      {failed && (
        <p class="error" role="alert">
          {words.loginFailed}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {words.login}
        </button>
        <a href="#/forgot-password">{words.forgotPassword}</a>
      </div>
    </form>
  );
}
