import type { ColumnType, Generated, Kysely, Selectable, SqlBool } from 'kysely';

/**
 * Row shapes as the database holds them. Booleans come back as 0/1 from SQLite and as
 * true/false from PostgreSQL; timestamps as text in UTC ("2026-11-21 09:30:05.123000").
 * Column names follow the original service, so its tables can be copied as they are.
 */
export interface UsersTable {
  id: Generated<number>;
  /** Null for a person without a login, as are email and password. */
  username: string | null;
  email: string | null;
  firstname: string;
  lastname: string;
  gender_id: number | null;
  type_id: number | null;
  phonenumber: string | null;
  phonenumber_mobile: string | null;
  street: string | null;
  housenumber: string | null;
  zip: string | null;
  city: string | null;
  is_vegetarian: SqlBool;
  can_swimm: SqlBool;
  password: string | null;
  is_active: SqlBool;
  created_at: string;
  updated_at: string;
  /** YYYY-MM-DD or null. */
  birthday: string | null;
  /** Sort keys of the names (lib/sort-key.ts), kept with every write of the names. */
  lastname_key: string;
  firstname_key: string;
  /** Changes with every change of the row: the person's ETag. */
  version: Generated<number>;
}

/** A user as the token lookup reads it: the password hash never leaves the database on that path. */
export type SessionUser = Omit<Selectable<UsersTable>, 'password' | 'birthday' | 'lastname_key' | 'firstname_key' | 'version'>;
export const SESSION_USER_COLUMNS = [
  'id', 'username', 'email', 'firstname', 'lastname', 'gender_id', 'type_id', 'phonenumber', 'phonenumber_mobile',
  'street', 'housenumber', 'zip', 'city', 'is_vegetarian', 'can_swimm', 'is_active', 'created_at', 'updated_at',
] as const satisfies readonly (keyof SessionUser)[];
// A column added to the users table must be added above (or to the exclusions of SessionUser).
const everySessionColumnListed: Record<Exclude<keyof SessionUser, (typeof SESSION_USER_COLUMNS)[number]>, never> = {};
void everySessionColumnListed;

/** Laravel Sanctum's table, column for column. */
export interface PersonalAccessTokensTable {
  id: Generated<number>;
  tokenable_type: string;
  tokenable_id: number;
  name: string;
  /** sha256 hex of the plain token's secret part. */
  token: string;
  /** JSON array text, e.g. ["*"]. */
  abilities: string | null;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** A browser's session: 0 ends after a short idle time, 1 was asked to be remembered; null: not a session. */
  session_remember: ColumnType<number | null, number | null | undefined, number | null>;
}

/** The outbox of cache changes, written by triggers (see db/invalidation/relay.ts). */
export interface CacheChangesTable {
  id: Generated<number>;
  user_id: number | null;
  token_id: number | null;
}

export interface GroupsTable {
  id: Generated<number>;
  parent_id: number | null;
  name: string;
  name_key: string;
  kind: string;
  description: string | null;
  /** Materialised path: the ids from the root down to the group itself, "/1/4/9/". */
  path: string;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface RoleTypesTable {
  id: Generated<number>;
  key: string;
  label: string;
  permission: 'none' | 'read' | 'write' | 'admin';
  scope: 'group' | 'subtree';
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface MembershipsTable {
  id: Generated<number>;
  person_id: number;
  group_id: number;
  role_type: string;
  label: string | null;
  /** YYYY-MM-DD: days compare in date order as text. */
  start_on: string;
  end_on: string | null;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}

/**
 * Each membership under its own group and each group above it, with its person's sort keys:
 * kept by triggers (migration keep-members-in-list-order), read by the people lists, never written.
 */
export interface MemberOrderTable {
  group_id: number;
  membership_id: number;
  person_id: number;
  lastname_key: string;
  firstname_key: string;
  lastname: string;
  firstname: string;
  start_on: string;
  end_on: string | null;
  role_type: string;
  /** 1 on the membership's own group, 0 on the groups above it. */
  direct: number;
  /** The person's, as in `users`: what a page checks its people's kept JSON against. */
  version: number;
  updated_at: string;
}

export interface GuardianshipsTable {
  id: Generated<number>;
  guardian_id: number;
  ward_id: number;
  created_at: string;
}

export interface EventsTable {
  id: Generated<number>;
  group_id: number;
  name: string;
  name_key: string;
  description: string | null;
  location: string | null;
  starts_at: string;
  ends_at: string;
  registration_opens_at: string | null;
  registration_closes_at: string | null;
  capacity: number | null;
  waiting_list: SqlBool;
  requires_approval: SqlBool;
  /** Accepted participations of role `participant`: what `capacity` limits. */
  participants_count: Generated<number>;
  waitlist_count: Generated<number>;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
  /** iCalendar's SEQUENCE (modules/calendars): raised when starts_at, ends_at or location changes; not in the event's JSON. */
  sequence: Generated<number>;
}

export type ParticipationRole = 'participant' | 'helper' | 'leader';
export type ParticipationState = 'pending' | 'accepted' | 'waitlisted' | 'rejected' | 'cancelled';

export interface ParticipationsTable {
  id: Generated<number>;
  event_id: number;
  person_id: number;
  role: ParticipationRole;
  state: ParticipationState;
  /** 1..n in queue order while waitlisted, else null. */
  waitlist_position: number | null;
  attended: SqlBool | null;
  notes: string | null;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  owner_id: number;
  key: string;
  /** SHA-256 of the request's path and body: the same key with another request is refused. */
  fingerprint: string;
  /** Null while the first request runs. */
  status_code: number | null;
  headers: string | null;
  body: string | null;
  running_until: string | null;
  created_at: string;
}

export interface ChangeRecordsTable {
  seq: number;
  entity: string;
  /** The id as text: a role type's is its key. */
  entity_id: string;
  action: string;
  at: string;
  actor_id: number | null;
  person_id: number | null;
  other_person_id: number | null;
  /** JSON `{field: [old, new]}`. */
  changes: string;
}

export interface ChangeSequenceTable {
  id: number;
  last_seq: number;
  /** Records up to this seq were pruned: a feed asked for after an older one is 410. */
  pruned_through: number;
}

export interface TenantDatabase {
  users: UsersTable;
  events: EventsTable;
  participations: ParticipationsTable;
  groups: GroupsTable;
  role_types: RoleTypesTable;
  memberships: MembershipsTable;
  member_order: MemberOrderTable;
  guardianships: GuardianshipsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  cache_changes: CacheChangesTable;
  idempotency_keys: IdempotencyKeysTable;
  change_records: ChangeRecordsTable;
  change_sequence: ChangeSequenceTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  mails: MailsTable;
  account_tokens: AccountTokensTable;
  email_status: EmailStatusTable;
  messages: MessagesTable;
  message_recipients: MessageRecipientsTable;
  calendar_feeds: CalendarFeedsTable;
}

/** A person's secret calendar feed (modules/calendars): one per person. */
export interface CalendarFeedsTable {
  id: Generated<number>;
  person_id: number;
  /** sha256 hex of the secret. */
  token: string;
  created_at: string;
  last_used_at: string | null;
}

/** The outbox of mail (migration 2026-12-07T18-00-00 says what each column holds). */
export interface MailsTable {
  id: Generated<number>;
  /** 'reset', 'invitation', 'email_changed', 'participation', 'message', 'message_copy'. */
  kind: string;
  user_id: number | null;
  to_address: string;
  to_name: string;
  from_name: string;
  reply_to: string | null;
  subject: string;
  text_body: string;
  html_body: string;
  message_id_header: string;
  state: MailState;
  attempts: Generated<number>;
  /** Ms since the epoch. */
  next_attempt_at: number | null;
  lease_holder: string | null;
  /** Ms since the epoch. */
  lease_until: number | null;
  error: string | null;
  account_token_id: number | null;
  message_id: number | null;
  created_at: string;
  sent_at: string | null;
}

export type MailState = 'held' | 'queued' | 'sent' | 'failed' | 'expired';

export interface AccountTokensTable {
  id: Generated<number>;
  kind: 'reset' | 'invitation';
  user_id: number;
  /** sha256 hex of the secret. */
  token: string;
  /** The person's address when it was made: a change of the address makes the token unknown. */
  email: string;
  inviter_id: number | null;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface EmailStatusTable {
  user_id: number;
  /** The address the refusals concern; another address is "ok". */
  email: string;
  refusals: number;
  last_error: string | null;
  /** When the address became failing (the third refusal), else null. */
  since: string | null;
  updated_at: string;
}

export interface MessagesTable {
  id: Generated<number>;
  /** Null once the sender is erased. */
  sender_id: number | null;
  subject: string;
  body: string;
  /** JSON of `to` as answered, defaults filled. */
  target: string;
  group_id: number | null;
  event_id: number | null;
  recipient_count: number;
  created_at: string;
}

export interface MessageRecipientsTable {
  id: Generated<number>;
  message_id: number;
  /** Null once the person is erased. */
  person_id: number | null;
  name: string;
  /** Sort key of lastname, firstname (lib/sort-key.ts): the list's name order. */
  name_key: string;
  email: string | null;
  state: 'queued' | 'sent' | 'failed' | 'unreachable';
  error: string | null;
  mail_id: number | null;
}

/** A tenant's database handle: the first argument of every function that reads or writes a tenant. */
export type TenantDb = Kysely<TenantDatabase>;

// Rows as read, one name per table that other modules pass around (each table's owner writes it).
export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type MembershipRow = Selectable<MembershipsTable>;
export type EventRow = Selectable<EventsTable>;

export interface WebhooksTable {
  id: Generated<number>;
  url: string;
  /** JSON array of entity names, or null for all. */
  entities: string | null;
  description: string | null;
  enabled: SqlBool;
  /** 'failing' once the last retry failed; null while enabled. */
  disabled_reason: string | null;
  secret: string;
  /** Message ids are `msg_<message_prefix>_<seq>`: the same on every retry, unique across tenants. */
  message_prefix: string;
  /** The seq of the last change record delivered or passed over. */
  position: number;
  failures: Generated<number>;
  /** Ms since the epoch. */
  next_attempt_at: number | null;
  lease_holder: string | null;
  /** Ms since the epoch. */
  lease_until: number | null;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  message_id: string;
  /** 'person.updated', ..., or 'ping'. */
  type: string;
  seq: number | null;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: string | null;
  at: string;
}

export interface TenantsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  /** IANA time zone name, e.g. "Europe/Zurich"; "UTC" unless set. */
  timezone: Generated<string>;
  /** The language of the tenant's mails: "de", "en" or "fr"; "en" unless set. */
  locale: Generated<string>;
  created_at: string;
}

export interface SettingsTable {
  key: string;
  /** JSON text. */
  value: string;
  updated_at: string;
}

/** One change to a user (user_id) or to a token (token_id). */
export interface AuthChangesTable {
  id: Generated<number>;
  tenant: string;
  user_id: number | null;
  token_id: number | null;
  created_at: string;
}

export interface RegistryDatabase {
  tenants: TenantsTable;
  settings: SettingsTable;
  auth_changes: AuthChangesTable;
  webhook_tenants: WebhookTenantsTable;
}

export interface WebhookTenantsTable {
  slug: string;
  created_at: string;
}
