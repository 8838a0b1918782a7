import Type from 'typebox';
import { Envelope, ErrorSchema, NoContent, Timestamp } from '../../http/schemas.js';
import { calendarMessages } from './messages.js';

export const FeedCreatedAnswer = Envelope(
  Type.Object({
    calendar: Type.Object({
      url: Type.String({ description: 'The secret feed address, `<PUBLIC_URL>/api/calendar/<token>.ics`: shown this once, never again' }),
    }),
  }),
);

export const FeedStatusAnswer = Envelope(
  Type.Object({
    calendar: Type.Union([Type.Object({ created_at: Timestamp, last_used_at: Type.Union([Timestamp, Type.Null()]) }), Type.Null()], {
      description: 'null when the caller has no feed; `last_used_at` is written at most once a minute',
    }),
  }),
);

export const FeedParams = Type.Object({
  token: Type.String({ description: 'The secret of the feed address (43 characters of base64url)' }),
});

/** An iCalendar file (the body is not JSON). */
export const calendarFile = (description: string, headers: Record<string, object> = {}) => ({
  description,
  ...(Object.keys(headers).length > 0 ? { headers } : {}),
  content: { 'text/calendar': { schema: Type.String({ description: 'iCalendar (RFC 5545), UTF-8, CRLF line ends' }) } },
});

export const FEED_ETAG_HEADER = { type: 'string', description: 'A hash of the content, quoted; send it back in If-None-Match for a 304' };
export const CACHE_CONTROL_HEADER = { type: 'string', description: 'private, max-age=900' };
export const NotModified = { ...NoContent, description: 'Not Modified: If-None-Match names the current ETag (no body)' };

export const CalendarNotFound = { ...ErrorSchema, description: `${calendarMessages.notFound} (an unknown, malformed or over-long token, or the feed of a deactivated or erased person)` };
