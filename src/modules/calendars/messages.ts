import { ApiError } from '../../errors.js';

/** The calendar feeds' answers (their exact English, which clients map to their own words). */
export const calendarMessages = {
  notFound: 'Calendar not found.',
} as const;

/** An unknown, malformed or over-long feed token, and the feed of a deactivated or erased person: one answer, never 401. */
export const calendarNotFound = (): ApiError => new ApiError('not_found', calendarMessages.notFound);
