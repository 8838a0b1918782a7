import type { PeopleWords } from './en.js';

/** The words of the members table, a new person and a person's page, in French. */
export const peopleWordsFr: PeopleWords = {
  membersTable: 'Membres',
};
