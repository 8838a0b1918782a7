import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadAccess, todayIn } from './access.js';
import { AppContext, type App, type Session } from './context.js';
import { translateApiMessage } from './i18n/api-messages.js';
import { browserLanguage, LANGUAGES, rememberedLanguage, rememberLanguage, wordsFor, type Language } from './i18n/index.js';
import { EventPage } from './pages/event.js';
import { GroupPage } from './pages/group.js';
import { GroupsPage } from './pages/groups.js';
import { LoginPage } from './pages/login.js';
import { PersonPage } from './pages/person.js';
import { ProfilePage } from './pages/profile.js';
import { WardsPage } from './pages/wards.js';
import { useRoute } from './router.js';
import { client, troubleOf, type Trouble } from './session.js';

function App() {
  const [language, setLanguage] = useState<Language>(() => rememberedLanguage() ?? browserLanguage());
  const [session, setSession] = useState<Session | null>(null);
  // A browser that is still signed in (the session cookie) skips the login page.
  const [restoring, setRestoring] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();
  // A notice is about the page it appeared on.
  useEffect(() => setNotice(null), [route.join('/')]);
  const words = wordsFor(language);
  document.documentElement.lang = language;

  const report = (trouble: Trouble) => {
    if (trouble.kind === 'unauthenticated') {
      setSession(null);
      setNotice(null);
    } else if (trouble.kind === 'rate-limited') {
      setNotice(words.tooMany(trouble.retryAfter));
    } else if (trouble.kind === 'refused') {
      setNotice(translateApiMessage(trouble.message, language));
    } else {
      setNotice(words.failed);
    }
  };

  /** After a login: who this is, the tenant's time zone and what they may do where. */
  const start = async (username: string) => {
    const [user, tenant] = await Promise.all([client.user(), client.tenant()]);
    const timeZone = tenant.data?.data.tenant.timezone ?? 'UTC';
    const today = todayIn(timeZone);
    const access = user.data && tenant.data ? await loadAccess(user.data.id, today) : null;
    if (!user.data || !access) {
      // No half-started session: the session just begun is ended.
      report(user.data ? { kind: 'failed', status: 0 } : troubleOf(user.response, user.error));
      await client.signOut().catch(() => undefined);
      return;
    }
    setNotice(null);
    setSession({ personId: user.data.id, username, timeZone, today, access });
  };
  useEffect(() => {
    // XSRF-TOKEN is set by every sign-in: without it this browser has no session to look for.
    if (!document.cookie.includes('XSRF-TOKEN=')) return setRestoring(false);
    client
      .user()
      .then((user) => (user.data ? start(user.data.username) : undefined))
      .catch(() => undefined)
      .finally(() => setRestoring(false));
  }, []);
  /** The session ends only when the API ended it; otherwise the page says why not. */
  const logout = async () => {
    try {
      const result = await client.signOut();
      if (!result.response.ok && result.response.status !== 401) return report(troubleOf(result.response, result.error));
    } catch {
      return report({ kind: 'failed', status: 0 });
    }
    setNotice(null);
    setSession(null);
  };

  const app: App | null = session && {
    words,
    language,
    session,
    report,
    refreshAccess: async () => {
      const access = await loadAccess(session.personId, session.today);
      if (access) setSession({ ...session, access });
    },
  };
  const [section, id] = route;
  const page = () => {
    const numeric = Number(id);
    if (section === 'wards') return <WardsPage />;
    // Keyed by id: another group's page starts afresh, never with this one's form contents.
    if (section === 'groups' && id) return <GroupPage key={numeric} id={numeric} />;
    if (section === 'groups') return <GroupsPage />;
    if (section === 'people' && id) return <PersonPage key={numeric} id={numeric} />;
    if (section === 'events' && id) return <EventPage key={numeric} id={numeric} />;
    return <ProfilePage onPasswordChanged={() => { setSession(null); setNotice(words.passwordChanged); }} />;
  };

  return (
    <>
      <header class="bar">
        <span class="brand">{words.appName}</span>
        {session && (
          <nav aria-label={words.appName}>
            <a href="#/">{words.profile}</a>
            <a href="#/wards">{words.wards}</a>
            <a href="#/groups">{words.groups}</a>
          </nav>
        )}
        <label class="language">
          <span class="visually-hidden">{words.language}</span>
          <select
            value={language}
            onChange={(event) => {
              const chosen = (event.target as HTMLSelectElement).value as Language;
              rememberLanguage(chosen);
              setLanguage(chosen);
            }}
          >
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
        {restoring ? null : app ? (
          <AppContext.Provider value={app}>{page()}</AppContext.Provider>
        ) : (
          <LoginPage words={words} onTrouble={report} onLoggedIn={start} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
