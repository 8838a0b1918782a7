import type { PeopleWords } from './en.js';

/** The words of the members table, a new person and a person's page, in German. */
export const peopleWordsDe: PeopleWords = {
  membersTable: 'Mitglieder',
};
