import type { EventWords } from './en.js';

/** The words of the event forms and the print view, in French. */
export const eventWordsFr: EventWords = {
  eventFormTitleNew: 'Nouvel événement',
};
