/** The words of the event forms (create, edit, copy) and the print view, in English: the reference. */
export const eventWordsEn = {
  eventFormTitleNew: 'New event',
};

export type EventWords = typeof eventWordsEn;
