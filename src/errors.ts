/**
 * The one error type of the service. Handlers and plugins throw it; the error handler
 * (plugins/error-handler.ts) is the only place that turns it into a response body.
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
  | 'https_required'
  | 'tenant_not_found'
  | 'not_found'
  | 'too_many_attempts'
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
  https_required: 403,
  tenant_not_found: 404,
  not_found: 404,
  too_many_attempts: 429,
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

export const unauthenticated = (): ApiError => new ApiError('unauthenticated', 'Unauthenticated.');

export function validationFailed(fieldErrors: FieldErrors): ApiError {
  const messages = Object.values(fieldErrors).flat();
  const others = messages.length - 1;
  const suffix = others === 0 ? '' : ` (and ${others} more error${others === 1 ? '' : 's'})`;
  return new ApiError('validation_failed', `${messages[0] ?? 'The given data was invalid.'}${suffix}`, {
    fieldErrors,
  });
}
