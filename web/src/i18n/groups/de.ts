import type { GroupWords } from './en.js';

/** The words of the group tree and a group's settings, in German. */
export const groupWordsDe: GroupWords = {
  groupSettings: 'Einstellungen',
  groupKind: 'Art',
  groupKindHint: 'Zum Beispiel Abteilung, Stufe oder Fähnli.',
  groupDescription: 'Beschreibung',
  groupSaved: (name: string) => `${name} gespeichert.`,
  deleteGroup: 'Gruppe löschen',
  deleteGroupHint: 'Nur möglich ohne Untergruppen, aktive Mitglieder und kommende Anlässe.',
  confirmDeleteGroup: (name: string) => `Gruppe ${name} löschen? Ihre vergangenen Anlässe werden mitgelöscht. Das lässt sich nicht rückgängig machen.`,
  groupDeleted: (name: string) => `${name} gelöscht.`,
  groupNotDeleted: (reason: string) => `Nicht gelöscht: ${reason}`,
};
