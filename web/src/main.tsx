import { render } from 'preact';
import { useState } from 'preact/hooks';
import { browserLanguage, LANGUAGES, wordsFor, type Language } from './i18n.js';
import { LoginPage } from './pages/login.js';
import { ProfilePage } from './pages/profile.js';
import { client, type Trouble } from './session.js';

export interface Session {
  username: string;
  timeZone: string;
}

function App() {
  const [language, setLanguage] = useState<Language>(browserLanguage());
  const [session, setSession] = useState<Session | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const words = wordsFor(language);
  document.documentElement.lang = language;

  /** Every page reports what went wrong here: a 401 returns to the login page. */
  const onTrouble = (trouble: Trouble) => {
    if (trouble.kind === 'unauthenticated') {
      setSession(null);
      setNotice(null);
    } else if (trouble.kind === 'rate-limited') {
      setNotice(words.tooMany(trouble.retryAfter));
    } else {
      setNotice(words.failed);
    }
  };
  const logout = async () => {
    await client.logout();
    setSession(null);
  };

  return (
    <>
      <header class="bar">
        <span class="brand">{words.appName}</span>
        <label class="language">
          <span class="visually-hidden">{words.language}</span>
          <select value={language} onChange={(event) => setLanguage((event.target as HTMLSelectElement).value as Language)}>
            {LANGUAGES.map((code) => (
              <option value={code}>{code.toUpperCase()}</option>
            ))}
          </select>
        </label>
        {session && (
          <button type="button" class="secondary" onClick={logout}>
            {words.logout}
          </button>
        )}
      </header>
      <main>
        {notice && (
          <p class="notice" role="alert">
            {notice}
          </p>
        )}
        {session ? (
          <ProfilePage words={words} language={language} session={session} onTrouble={onTrouble} onLoggedOut={(message) => { setSession(null); setNotice(message); }} />
        ) : (
          <LoginPage words={words} onTrouble={onTrouble} onLoggedIn={(next) => { setNotice(null); setSession(next); }} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
