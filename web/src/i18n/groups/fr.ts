import type { GroupWords } from './en.js';

/** The words of the group tree and a group's settings, in French. */
export const groupWordsFr: GroupWords = {
  groupSettings: 'Réglages',
  groupKind: 'Type de groupe',
  groupKindHint: 'Par exemple groupe, unité ou patrouille.',
  groupDescription: 'Descriptif du groupe',
  groupSaved: (name: string) => `${name} enregistré.`,
  deleteGroup: 'Supprimer le groupe',
  deleteGroupHint: 'Possible seulement sans sous-groupes, membres actifs ni activités à venir.',
  confirmDeleteGroup: (name: string) => `Supprimer le groupe ${name} ? Ses activités passées sont supprimées avec lui. C’est définitif.`,
  groupDeleted: (name: string) => `${name} supprimé.`,
  groupNotDeleted: (reason: string) => `Pas supprimé : ${reason}`,
};
