// The rule for a participation's notes: what a family tells the leaders (allergies, medication).

/** How the caller stands to one participation. */
export interface NotesReader {
  /** `write` on the event's group: one of the event's managers. */
  manager: boolean;
  /** The caller is the person, or one of their guardians. */
  ownOrWard: boolean;
}

/**
 * Who may read a participation's notes: the event's managers, the person, and their guardians.
 * Anyone else who sees the participation (someone who sees both the person and the event) gets
 * it without the `notes` field. The one place this is decided: every JSON answer that shows a
 * participation asks here; the participant CSV, which has a `notes` column, is for managers only.
 */
export const mayReadNotes = ({ manager, ownOrWard }: NotesReader): boolean => manager || ownOrWard;

/**
 * What a change record says of changed notes: that they changed, never what they say. Records
 * are read by people the notes are not for (a group's writers, administrators, webhooks).
 */
export const HIDDEN_NOTES: [string, string] = ['[hidden]', '[hidden]'];
