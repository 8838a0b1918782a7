/** The words of the group tree and a group's settings, in English: the reference. */
export const groupWordsEn = {
  groupSettings: 'Settings',
  groupKind: 'Kind',
  groupKindHint: 'For example unit, troop or patrol.',
  groupDescription: 'Description',
  groupSaved: (name: string) => `${name} saved.`,
  deleteGroup: 'Delete group',
  deleteGroupHint: 'Possible only without subgroups, active members and coming events.',
  confirmDeleteGroup: (name: string) => `Delete the group ${name}? Its past events go with it. This cannot be undone.`,
  groupDeleted: (name: string) => `${name} deleted.`,
  groupNotDeleted: (reason: string) => `Not deleted: ${reason}`,
};

export type GroupWords = typeof groupWordsEn;
