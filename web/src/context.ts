import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Access } from './access.js';
import type { Language, Words } from './i18n/index.js';
import { client, troubleOf, type Trouble } from './session.js';

type UserAccess = NonNullable<Awaited<ReturnType<typeof client.access>>['data']>['data'];

/** Who is signed in and what they may do: GET /user/access, read once at sign-in (and after a change to the tree). */
export interface Session {
  personId: number;
  me: UserAccess['user'];
  tenant: UserAccess['tenant'];
  timeZone: string;
  /** Today in the tenant's time zone (YYYY-MM-DD). */
  today: string;
  /** The token of this browser's session ("this device"). */
  tokenId: number;
  wards: UserAccess['wards'];
  /** The memberships active today. */
  memberships: UserAccess['memberships'];
  roleTypes: UserAccess['role_types'];
  access: Access;
}

export interface App {
  words: Words;
  language: Language;
  session: Session;
  /** Reports what went wrong: a 401 returns to the login page, a 429 says when to try again. */
  report: (trouble: Trouble) => void;
  /** A short confirmation after a write, shown on the page at `path` (the current one when not given). */
  announce: (text: string, path?: string) => void;
  /** Loads the groups and permissions again (after a change to the tree). */
  refreshAccess: () => Promise<void>;
}

export const AppContext = createContext<App | null>(null);

export function useApp(): App {
  const app = useContext(AppContext);
  if (!app) throw new Error('useApp outside the logged-in app');
  return app;
}

/** The `data` of an answer, or null after reporting why there is none. */
export function dataOf<T>(app: Pick<App, 'report'>, result: { data?: T; error?: unknown; response: Response }): T | null {
  if (result.data !== undefined) return result.data;
  app.report(troubleOf(result.response, result.error));
  return null;
}
