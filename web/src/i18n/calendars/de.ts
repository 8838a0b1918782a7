import type { CalendarWords } from './en.js';

/** The words of calendar feeds, .ics files and contact downloads, in German. */
export const calendarWordsDe: CalendarWords = {
  addToCalendar: 'Zu meinem Kalender hinzufügen',
  calendarIntro:
    'Eine geheime Adresse für den Kalender deines Handys oder Computers. Sie enthält die Anlässe, für die du und deine Kinder angemeldet seid oder zu denen ihr euch anmelden könnt, und der Kalender hält sie selbst auf dem neusten Stand.',
  calendarNone: 'Du hast noch keine Kalender-Adresse.',
  calendarSince: (created: string) => `Deine Kalender-Adresse wurde am ${created} erstellt.`,
  calendarLastFetched: (moment: string) => `Zuletzt von einem Kalender abgerufen: ${moment}.`,
  calendarNeverFetched: 'Noch kein Kalender hat sie abgerufen.',
  calendarNotShownAgain: 'Die Adresse selbst wird nur beim Erstellen gezeigt. Wenn du sie nicht mehr hast, ersetze sie.',
  createCalendarAddress: 'Adresse erstellen',
  replaceCalendarAddress: 'Adresse ersetzen',
  stopCalendarFeed: 'Kalender-Abo beenden',
  confirmReplaceCalendar: 'Kalender-Adresse ersetzen? Die alte Adresse funktioniert sofort nicht mehr: Kalender, die sie nutzen, müssen die neue abonnieren.',
  confirmStopCalendar: 'Kalender-Abo beenden? Die Adresse funktioniert sofort nicht mehr, und Kalender, die sie nutzen, erhalten keine Anlässe mehr.',
  calendarAddress: 'Deine Kalender-Adresse',
  calendarAddressOnce: 'Kopiere die Adresse jetzt oder scanne den Code mit dem Handy: Sie wird nur dieses eine Mal gezeigt.',
  calendarPrivacy:
    'Der Kalender zeigt die Vornamen deiner Kinder mit den Anlässen, also wo und wann sie sein werden. Gib die Adresse nur deiner Kalender-App. Wenn sie in falsche Hände geraten sein könnte (ein geteiltes Bildschirmfoto, ein verlorenes Handy), ersetze die Adresse oder beende das Abo.',
  calendarQrCode: 'QR-Code der Kalender-Adresse, zum Scannen mit dem Handy',
  calendarAddressCopied: 'Adresse kopiert.',
  calendarCreated: 'Deine Kalender-Adresse ist bereit.',
  calendarReplaced: 'Deine neue Kalender-Adresse ist bereit. Die alte funktioniert nicht mehr.',
  calendarStopped: 'Das Kalender-Abo ist beendet. Seine Adresse funktioniert nicht mehr.',
  subscribeTitle: 'So abonnierst du den Kalender',
  subscribeHint: 'Abonniere die Adresse als Kalender «per URL». Importiere sie nicht einmalig als Datei: Sonst wird sie nicht aktualisiert.',
  subscribeIphone: 'Auf dem iPhone oder iPad',
  subscribeIphoneSteps: 'Einstellungen → Kalender → Accounts → Account hinzufügen → Andere → Kalenderabo hinzufügen; Adresse einfügen. Auf dem Mac: Kalender → Ablage → Neues Kalenderabonnement.',
  subscribeAndroid: 'Auf Android, mit Google Kalender',
  subscribeAndroidSteps:
    'Im Google Kalender im Browser: Weitere Kalender → + → Per URL; Adresse einfügen. Auf dem Handy in den Einstellungen der Google-Kalender-App die Synchronisierung dieses Kalenders einschalten. Google aktualisiert ihn in eigenem Rhythmus, oft nur alle paar Stunden.',
  subscribeOutlook: 'Mit Outlook',
  subscribeOutlookSteps: 'Outlook im Web: Kalender hinzufügen → Aus dem Internet abonnieren. Outlook für Windows: Kalender hinzufügen → Aus dem Internet. Adresse einfügen.',
  calendarOnProfile: 'Unsere Anlässe in meinem Kalender',
  calendarOnProfileHint: 'Deine Anlässe und die deiner Kinder im Kalender deines Handys, immer aktuell.',
  downloadIcs: 'Für meinen Kalender herunterladen (.ics)',
  downloadContacts: 'Kontakte herunterladen (vCard)',
  downloadContact: 'Kontakt herunterladen (vCard)',
};
