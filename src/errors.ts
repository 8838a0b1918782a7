/**
 * The one error type of the service, and the catalogue of every error it answers with. Handlers,
 * plugins and rules throw what a factory below makes; no message text is written at a throw site.
 * The error handler (http/error-handler.ts) is the only place that turns an ApiError into a body.
 */
export type ErrorCode =
  | 'route_not_found'
  | 'method_not_allowed'
  | 'malformed_json'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'unauthenticated'
  | 'login_failed'
  | 'ability_missing'
  | 'unauthorized'
  | 'https_required'
  | 'tenant_not_found'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'precondition_failed'
  | 'too_many_attempts'
  | 'csrf_mismatch'
  | 'server_error'
  | 'service_unavailable';

const STATUS: Record<ErrorCode, number> = {
  route_not_found: 404,
  method_not_allowed: 405,
  malformed_json: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  unauthenticated: 401,
  login_failed: 401,
  ability_missing: 403,
  unauthorized: 403,
  https_required: 403,
  tenant_not_found: 404,
  not_found: 404,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  too_many_attempts: 429,
  csrf_mismatch: 419,
  server_error: 500,
  service_unavailable: 503,
};

/** Field name -> messages, in the order the fields were checked. */
export type FieldErrors = Record<string, string[]>;

export interface ApiErrorDetails {
  fieldErrors?: FieldErrors;
  /** Methods the path does support, for 405's Allow header. */
  allow?: string[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ApiErrorDetails = {},
  ) {
    super(message);
    this.statusCode = STATUS[code];
  }
}

/** `api/users/1` as the original's messages name a route. */
const routeText = (url: string) => (url.split('?')[0] ?? '').replace(/^\/+|\/+$/g, '') || '/';

/** The resources a caller may be told do not exist (one message each). */
export type ResourceName =
  | 'Token'
  | 'Group'
  | 'Role type'
  | 'Person'
  | 'Membership'
  | 'Guardian'
  | 'Event'
  | 'Participation'
  | 'Webhook';

/** Storage away and maintenance both answer this. */
const SERVICE_UNAVAILABLE = 'Service Unavailable';

/** Every error answer of the service, by name (docs/api/conventions.md). */
export const errors = {
  routeNotFound: (url: string) => new ApiError('route_not_found', `The route ${routeText(url)} could not be found.`),
  methodNotAllowed: (method: string, url: string, allow: string[]) =>
    new ApiError(
      'method_not_allowed',
      `The ${method} method is not supported for route ${routeText(url)}. Supported methods: ${allow.join(', ')}.`,
      { allow },
    ),
  malformedJson: () => new ApiError('malformed_json', 'Malformed JSON body.'),
  payloadTooLarge: () => new ApiError('payload_too_large', 'Payload Too Large.'),
  unsupportedMediaType: () =>
    new ApiError('unsupported_media_type', 'Unsupported Media Type. Send JSON with Content-Type: application/json.'),
  /** 415 of the CSV import: it takes CSV only. */
  unsupportedCsvMediaType: () => new ApiError('unsupported_media_type', 'Unsupported Media Type. Send CSV with Content-Type: text/csv.'),
  unauthenticated: () => new ApiError('unauthenticated', 'Unauthenticated.'),
  loginFailed: () => new ApiError('login_failed', 'Login Fail, pls check password'),
  abilityMissing: () => new ApiError('ability_missing', 'Invalid ability provided.'),
  /** The caller sees the resource but their role does not allow the action. */
  unauthorized: () => new ApiError('unauthorized', 'This action is unauthorized.'),
  httpsRequired: () => new ApiError('https_required', 'HTTPS required.'),
  tenantNotFound: () => new ApiError('tenant_not_found', 'Tenant not found.'),
  /** Unknown, or not visible to the caller: the same answer. */
  notFound: (resource: ResourceName) => new ApiError('not_found', `${resource} not found.`),
  idempotencyKeyInProgress: () => new ApiError('conflict', 'A request with this Idempotency-Key is in progress.'),
  changeFeedGone: () => new ApiError('gone', 'The change feed no longer reaches back that far.'),
  changedBySomeoneElse: () => new ApiError('precondition_failed', 'The resource was changed by someone else.'),
  tooManyAttempts: (retryAfterSeconds: number) =>
    new ApiError('too_many_attempts', 'Too Many Attempts.', { retryAfterSeconds }),
  /** The original's answer to a state-changing request that looks like a browser form (see error-handler.ts). */
  csrfMismatch: () => new ApiError('csrf_mismatch', 'CSRF token mismatch.'),
  serverError: () => new ApiError('server_error', 'Server Error'),
  serviceUnavailable: (retryAfterSeconds?: number, message = SERVICE_UNAVAILABLE) =>
    new ApiError('service_unavailable', message, retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  /** 422: `message` is the first field message plus " (and N more errors)". */
  validation(fieldErrors: FieldErrors): ApiError {
    const messages = Object.values(fieldErrors).flat();
    const others = messages.length - 1;
    const suffix = others === 0 ? '' : ` (and ${others} more error${others === 1 ? '' : 's'})`;
    return new ApiError('validation_failed', `${messages[0] ?? 'The given data was invalid.'}${suffix}`, { fieldErrors });
  },
  /** 422 with one message on one field. */
  invalidField: (field: string, message: string) => errors.validation({ [field]: [message] }),
  /**
   * 422 for a rule that no single field of the request breaks (a group that still
   * has subgroups, the last administrator): `errors` names the resource the rule protects.
   */
  ruleBroken: (resource: string, message: string) => errors.validation({ [resource]: [message] }),
} as const;

/** A field's name as Laravel's messages show it: underscores as spaces. */
export const attribute = (field: string): string => field.replace(/_/g, ' ');

/**
 * Field messages that are not schema failures (those are worded in lib/validation.ts), in
 * Laravel's words. Used with errors.validation / errors.invalidField, by the HTTP layer and the CLI.
 */
export const fieldMessages = {
  taken: (field: string) => `The ${attribute(field)} has already been taken.`,
  invalid: (field: string) => `The ${attribute(field)} field is invalid.`,
  prohibited: (field: string) => `The ${attribute(field)} field is prohibited.`,
  prohibits: (field: string, other: string) => `The ${attribute(field)} field prohibits ${attribute(other)} from being present.`,
  confirmationMismatch: (field: string) => `The ${attribute(field)} field confirmation does not match.`,
  passwordIncorrect: () => 'The password is incorrect.',
  dateAfterNow: (field: string) => `The ${attribute(field)} field must be a date after now.`,
  required: (field: string) => `The ${attribute(field)} field is required.`,
  requiredWithout: (field: string, other: string) => `The ${attribute(field)} field is required when ${attribute(other)} is not present.`,
  selectedInvalid: (field: string) => `The selected ${attribute(field)} is invalid.`,
  timezone: (field: string) => `The ${attribute(field)} field must be a valid timezone.`,
  dateAfterOrEqual: (field: string, other: string) => `The ${attribute(field)} field must be a date after or equal to ${attribute(other)}.`,
  dateBeforeOrEqual: (field: string, other: string) => `The ${attribute(field)} field must be a date before or equal to ${attribute(other)}.`,
  reservedTokenName: (name: string) => `The name ${name} is reserved.`,
  abilitiesBeyondToken: (beyond: readonly string[]) =>
    `The abilities field may not grant what this token lacks: ${beyond.join(', ')}.`,
  expiryBeyondToken: (expiresAt: string) => `The expires at field may not be later than this token's own expiry, ${expiresAt}.`,
} as const;

/** The words of the people import (CSV and XLSX). */
export const importMessages = {
  passwordColumn: 'The password column cannot be imported.',
  unknownColumn: (name: string) => `The file has an unknown column: ${name}.`,
  unnamedColumn: (position: number) => `Column ${position} of the header has no name.`,
  repeatedColumn: (name: string) => `The column ${name} appears more than once.`,
  noHeader: 'The file must have a header row.',
  notUtf8: 'The file must be UTF-8 text.',
  tooManyRows: (max: number) => `The file must not have more than ${max} rows.`,
  quoteNotClosed: (row: number) => `A quoted cell that begins in row ${row} is never closed.`,
  textAfterQuote: (row: number) => `A quoted cell in row ${row} has text after its closing quote.`,
  notCsv: (row: number) => `The file is not valid CSV from row ${row} on.`,
  tooManyCells: 'The row has more cells than the header has columns.',
  usernameNotImported: 'The username field cannot be set by import.',
  emailTakenInRow: (row: number) => `The email has already been taken in row ${row}.`,
  samePersonAsRow: (row: number) => `The row matches the same person as row ${row}.`,
  mayNotChange: 'You may not change the person this row matches.',
  columnsMeanOneField: (first: string, second: string, field: string) => `The columns "${first}" and "${second}" both mean ${attribute(field)}.`,
  monthFirstDates: 'Dates like 03/24/2014 are read day first; use 24.03.2014.',
  notDate: (field: string) => `The ${attribute(field)} field must be a date such as 2014-03-04 or 04.03.2014.`,
  notYesNo: (field: string) => `The ${attribute(field)} field must be yes or no, such as true/false, yes/no, ja/nein, oui/non, wahr/falsch, vrai/faux, 1/0 or x/empty.`,
  notUtf16: 'The file must be UTF-16 text, as its byte order mark says.',
  unknownCharset: 'The charset of the file must be utf-8, windows-1252 or iso-8859-1.',
  notXlsx: 'The file is not a readable XLSX workbook.',
  spreadsheetError: (field: string, value: string) => `The ${attribute(field)} cell holds the spreadsheet error ${value}.`,
} as const;

/** The messages of the domain rules: webhooks and retries, groups, role types, memberships, guardians, then events. */
export const ruleMessages = {
  webhookAddress: 'The url must be a public https address.',
  idempotencyKeyReused: 'The Idempotency-Key was used for another request.',
  idempotencyKeyMalformed: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
  groupHasSubgroups: 'The group still has subgroups.',
  groupHasActiveMemberships: 'The group still has active memberships.',
  groupHasUpcomingEvents: 'The group still has upcoming events.',
  rootGroupFixed: 'The root group cannot be deleted or moved.',
  groupBelowItself: 'The group cannot be moved below itself.',
  roleTypeInUse: 'The role type is still in use.',
  alreadyHasRole: 'The person already has this role in this group.',
  lastAdministrator: 'The last administrator cannot be removed.',
  guardianIsPerson: 'The guardian must be another person.',
  alreadyGuardian: 'The person is already a guardian.',
  // events and participations
  registrationClosed: 'Registration is closed.',
  alreadyRegistered: 'The person is already registered.',
  eventFull: 'The event is full.',
  eventHasNoWaitingList: 'The event has no waiting list.',
  eventHasParticipants: 'The event has participants.',
  stateCannotChange: (from: string, to: string) => `The state cannot change from ${from} to ${to}.`,
  capacityBelowAccepted: 'The capacity may not be less than the accepted participants.',
  attendedOnlyAccepted: 'The attended field may only be set on accepted participations.',
} as const;
