/** The words of the members table, a new person and a person's page, in English: the reference. */
export const peopleWordsEn = {
  membersTable: 'Members',
};

export type PeopleWords = typeof peopleWordsEn;
