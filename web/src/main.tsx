import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadSession } from './access.js';
import { AppContext, type App, type Session } from './context.js';
import { translateApiMessage } from './i18n/api-messages.js';
import { browserLanguage, LANGUAGES, rememberedLanguage, rememberLanguage, wordsFor, type Language } from './i18n/index.js';
import { EventPage } from './pages/event.js';
import { GroupPage } from './pages/group.js';
import { GroupsPage } from './pages/groups.js';
import { LoginPage } from './pages/login.js';
import { PersonPage } from './pages/person.js';
import { HomePage } from './pages/home.js';
import { CalendarPage } from './pages/calendar.js';
import { ProfilePage } from './pages/profile.js';
import { RegisterPage } from './pages/register.js';
import { SearchPage } from './pages/search.js';
import { SessionsPage } from './pages/sessions.js';
import { WardPage } from './pages/ward.js';
import { WardsPage } from './pages/wards.js';
import { EventFormPage } from './pages/event-form.js';
import { EventPrintPage } from './pages/event-print.js';
import { ImportPage } from './pages/import.js';
import { NewPersonPage } from './pages/new-person.js';
import { AdminPage, isRootAdmin, RoleTypesPage } from './pages/admin.js';
import { TenantSettingsPage } from './pages/admin-tenant.js';
import { TokensPage } from './pages/admin-tokens.js';
import { WebhooksPage } from './pages/admin-webhooks.js';
import { go, useRoute } from './router.js';
import { takeLinkToken, type LinkToken } from './link-token.js';
import { ForgotPasswordPage } from './pages/password-forgot.js';
import { ResetPasswordPage } from './pages/password-reset.js';
import { InvitationPage } from './pages/invitation.js';
import { ComposeMessagePage } from './pages/message-compose.js';
import { MessagePage, MessagesPage } from './pages/messages.js';
import { client, troubleOf, whenWaiting, type Trouble } from './session.js';

/**
 * Moves the focus to the page's heading once it is shown (a page shows it when its data has
 * come), so that a screen reader announces the new page; gives up after a few seconds.
 */
function focusHeadingWhenShown(): () => void {
  const main = document.getElementById('content')!;
  const focus = () => {
    const heading = main.querySelector<HTMLElement>('h1');
    if (heading) heading.focus();
    return heading !== null;
  };
  if (focus()) return () => undefined;
  const observer = new MutationObserver(() => focus() && observer.disconnect());
  observer.observe(main, { childList: true, subtree: true });
  const timer = setTimeout(() => observer.disconnect(), 5000);
  return () => {
    observer.disconnect();
    clearTimeout(timer);
  };
}

/**
 * A role somewhere (an active membership, any role type: groups are visible to every member) opens
 * the groups and the API tokens from the menu. A parent who only looks after wards has neither in
 * it; their tokens stay a link on the profile page.
 */
const hasRoles = (session: Session): boolean => session.memberships.length > 0;

/** Leaders (write on some group) send messages: "my messages" is theirs. */
const writesSomewhere = (session: Session): boolean => [...session.access.groups.keys()].some((id) => session.access.atLeast(id, 'write'));

// Before any request: a link from a mail leaves no token in the address bar, the history or a referrer.
const linkToken = takeLinkToken();
// The same for a link opened in a tab where the app already runs. Listening before the router does,
// the token is gone before the router reads the address.
const linkListeners = new Set<(link: LinkToken) => void>();
window.addEventListener('hashchange', () => {
  const link = takeLinkToken();
  if (link) for (const listener of linkListeners) listener(link);
});

function App() {
  const [language, setLanguage] = useState<Language>(() => rememberedLanguage() ?? browserLanguage());
  const [session, setSession] = useState<Session | null>(null);
  // The sign-in's agenda, shown by the home page without asking again.
  const [agenda, setAgenda] = useState<Parameters<typeof HomePage>[0]['agenda']>(null);
  // A browser that is still signed in (the session cookie) skips the login page.
  const [restoring, setRestoring] = useState(true);
  // A link from a mail (a new password, an invitation) opens its own page first, signed in or not.
  const [link, setLink] = useState<LinkToken | null>(linkToken);
  useEffect(() => {
    linkListeners.add(setLink);
    return () => void linkListeners.delete(setLink);
  }, []);
  const [notice, setNotice] = useState<string | null>(null);
  // Requests sitting out the rate limit: the seconds until they try again (0: now), null when none waits.
  const [waitSeconds, setWaitSeconds] = useState<number | null>(null);
  const route = useRoute();
  const here = route.join('/');
  // A confirmation after a write, for the page it was meant for; gone with the next navigation.
  const [announcement, setAnnouncement] = useState<{ text: string; page: string } | null>(null);
  // A notice is about the page it appeared on.
  useEffect(() => {
    setNotice(null);
    setAnnouncement((current) => (current && current.page === here ? current : null));
  }, [here]);
  useEffect(() => whenWaiting(setWaitSeconds), []);
  // On navigation the focus moves to the new page's heading (screen readers announce it).
  useEffect(() => (session || link ? focusHeadingWhenShown() : undefined), [route.join('/'), session === null, link === null]);
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

  /** After a sign-in, or a reload that found the session: who this is, what they may do, what is next. */
  const start = async (): Promise<boolean> => {
    const loaded = await loadSession();
    if (!loaded.session) {
      if (loaded.trouble && loaded.trouble.response.status !== 401) report(troubleOf(loaded.trouble.response, loaded.trouble.error));
      return false;
    }
    setNotice(null);
    setAgenda(loaded.agenda);
    setSession(loaded.session);
    return true;
  };
  const signedIn = async (announcement?: string) => {
    setLink(null);
    if (!(await start())) {
      // No half-started session: the session just begun is ended.
      report({ kind: 'failed', status: 0 });
      await client.signOut().catch(() => undefined);
      return;
    }
    // Said on the page the sign-in lands on (e.g. "password set" after a mail's link).
    if (announcement) setAnnouncement({ text: announcement, page: here });
  };
  useEffect(() => {
    // XSRF-TOKEN is set by every sign-in: without it this browser has no session to look for.
    if (link || !document.cookie.includes('XSRF-TOKEN=')) return setRestoring(false);
    start()
      .catch(() => false)
      .finally(() => setRestoring(false));
  }, []);
  /**
   * Leaves a mail link's page. A browser that is still signed in (the link's page is shown signed
   * in or not, and a fresh tab has not looked for the session) goes back to the app, else to the sign-in.
   */
  const leaveLink = () => {
    setLink(null);
    if (session || !document.cookie.includes('XSRF-TOKEN=')) return;
    setRestoring(true);
    void start()
      .catch(() => false)
      .finally(() => setRestoring(false));
  };
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
    announce: (text, path) => {
      const page = path === undefined ? here : path.replace(/^\/+/, '');
      setAnnouncement({ text, page });
      if (page !== here) go(`/${page}`);
    },
    refreshAccess: async () => {
      const loaded = await loadSession();
      if (loaded.session) setSession(loaded.session);
    },
  };
  const [section, id] = route;
  const page = () => {
    const numeric = Number(id);
    if (section === 'wards' && id) return <WardPage key={numeric} id={numeric} />;
    if (section === 'wards') return <WardsPage />;
    if (section === 'sessions') return <SessionsPage />;
    if (section === 'calendar') return <CalendarPage />;
    // Everyone may keep API tokens of their own; the tenant's settings are for its administrators.
    if (section === 'tokens') return <TokensPage />;
    if (section === 'admin' && session && isRootAdmin(session)) {
      if (id === 'role-types') return <RoleTypesPage />;
      if (id === 'tenant') return <TenantSettingsPage />;
      if (id === 'webhooks') return <WebhooksPage />;
      return <AdminPage />;
    }
    if (section === 'profile') return <ProfilePage onPasswordChanged={() => setNotice(words.passwordChangedStaySignedIn)} />;
    // Keyed by id: another group's page starts afresh, never with this one's form contents.
    if (section === 'groups' && id && route[2] === 'messages' && route[3] === 'new') return <ComposeMessagePage key={`group/${id}`} target={{ groupId: numeric }} />;
    if (section === 'groups' && id && route[2] === 'messages') return <MessagesPage key={`group/${id}`} of={{ groupId: numeric }} />;
    if (section === 'events' && id && route[2] === 'messages' && route[3] === 'new') return <ComposeMessagePage key={`event/${id}`} target={{ eventId: numeric }} />;
    if (section === 'events' && id && route[2] === 'messages') return <MessagesPage key={`event/${id}`} of={{ eventId: numeric }} />;
    if (section === 'groups' && id && route[2] === 'events' && route[3] === 'new') return <EventFormPage key={`new/${id}`} groupId={numeric} />;
    if (section === 'groups' && id && route[2] === 'people' && route[3] === 'new') return <NewPersonPage key={numeric} groupId={numeric} />;
    if (section === 'groups' && id && route[2] === 'import') return <ImportPage key={numeric} groupId={numeric} />;
    if (section === 'groups' && id) return <GroupPage key={numeric} id={numeric} />;
    if (section === 'groups') return <GroupsPage />;
    if (section === 'people' && id) return <PersonPage key={numeric} id={numeric} />;
    if (section === 'events' && id && route[2] === 'register' && route[3]) {
      return <RegisterPage key={`${id}/${route[3]}`} eventId={numeric} personId={Number(route[3])} />;
    }
    if (section === 'events' && id && route[2] === 'edit') return <EventFormPage key={`edit/${id}`} eventId={numeric} />;
    if (section === 'events' && id && route[2] === 'copy') return <EventFormPage key={`copy/${id}`} copyOf={numeric} />;
    if (section === 'events' && id && route[2] === 'print') return <EventPrintPage key={numeric} id={numeric} />;
    if (section === 'events' && id) return <EventPage key={numeric} id={numeric} />;
    if (section === 'search' && id) return <SearchPage key={id} text={decodeURIComponent(id)} />;
    if (section === 'messages' && id) return <MessagePage key={numeric} id={numeric} />;
    if (section === 'messages') return <MessagesPage of={{}} />;
    // The agenda read at sign-in serves the first visit of the home page only.
    return <HomePage agenda={agenda} onShown={() => setAgenda(null)} />;
  };

  return (
    <>
      <a class="skip-link" href="#content" onClick={(event) => { event.preventDefault(); document.getElementById('content')?.focus(); }}>
        {words.skipToContent}
      </a>
      <header class="bar">
        <span class="brand">{words.appName}</span>
        {session && (
          <nav aria-label={words.appName}>
            <a href="#/">{words.home}</a>
            {session.wards.length > 0 && <a href="#/wards">{words.wards}</a>}
            {hasRoles(session) && <a href="#/groups">{words.groups}</a>}
            <a href="#/profile">{words.profile}</a>
            <a href="#/sessions">{words.sessions}</a>
            {hasRoles(session) && <a href="#/tokens">{words.apiTokens}</a>}
            {writesSomewhere(session) && <a href="#/messages">{words.myMessages}</a>}
            {isRootAdmin(session) && <a href="#/admin">{words.administration}</a>}
          </nav>
        )}
        {session && (
          <form
            class="search"
            role="search"
            onSubmit={(event) => {
              event.preventDefault();
              const text = new FormData(event.currentTarget).get('q')?.toString().trim() ?? '';
              if (text !== '') go(`/search/${encodeURIComponent(text)}`);
            }}
          >
            <label>
              <span class="visually-hidden">{words.searchPeople}</span>
              <input type="search" name="q" placeholder={words.searchPeople} maxLength={255} />
            </label>
          </form>
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
      <main id="content" tabIndex={-1}>
        {announcement && announcement.page === here && (
          <p class="success announcement" role="status">
            {announcement.text}
          </p>
        )}
        {notice && (
          <p class="notice" role="alert">
            {notice}
          </p>
        )}
        {restoring ? null : link ? (
          link.kind === 'reset' ? (
            <ResetPasswordPage
              key={link.token}
              words={words}
              language={language}
              token={link.token}
              onTrouble={report}
              onSignedIn={signedIn}
              onNewLink={() => {
                setLink(null);
                go('/forgot-password');
              }}
              onLeave={leaveLink}
            />
          ) : (
            // Keyed by the token: a second link opened in this tab starts afresh, not with the first one's answer.
            <InvitationPage key={link.token} words={words} language={language} token={link.token} onTrouble={report} onSignedIn={signedIn} onLeave={leaveLink} />
          )
        ) : app ? (
          <AppContext.Provider value={app}>{page()}</AppContext.Provider>
        ) : section === 'forgot-password' ? (
          <ForgotPasswordPage words={words} language={language} onTrouble={report} />
        ) : (
          <LoginPage words={words} onTrouble={report} onLoggedIn={signedIn} />
        )}
      </main>
      {/* Always there, so that a screen reader hears what appears in it; fixed in view, as a page may be scrolled far down. */}
      <div class="waiting" role="status">
        {waitSeconds !== null && <p class="notice">{words.retrying(waitSeconds)}</p>}
      </div>
    </>
  );
}

render(<App />, document.getElementById('app')!);
