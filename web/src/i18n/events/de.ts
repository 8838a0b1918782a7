import type { EventWords } from './en.js';

/** The words of the event forms and the print view, in German. */
export const eventWordsDe: EventWords = {
  eventFormTitleNew: 'Neuer Anlass',
};
