import type { CalendarWords } from './en.js';

/** The words of calendar feeds, .ics files and contact downloads, in French. */
export const calendarWordsFr: CalendarWords = {
  addToCalendar: 'Ajouter à mon agenda',
  calendarIntro:
    'Une adresse secrète pour l’agenda de ton téléphone ou de ton ordinateur. Elle contient les activités auxquelles toi et tes enfants êtes inscrits, et celles auxquelles vous pouvez vous inscrire ; l’agenda les tient à jour tout seul.',
  calendarNone: 'Tu n’as pas encore d’adresse d’agenda.',
  calendarSince: (created: string) => `Ton adresse d’agenda a été créée le ${created}.`,
  calendarLastFetched: (moment: string) => `Dernière consultation par un agenda : ${moment}.`,
  calendarNeverFetched: 'Aucun agenda ne l’a encore consultée.',
  calendarNotShownAgain: 'L’adresse elle-même n’est montrée qu’à sa création. Si tu ne l’as plus, remplace-la.',
  createCalendarAddress: 'Créer l’adresse',
  replaceCalendarAddress: 'Remplacer l’adresse',
  stopCalendarFeed: 'Arrêter l’abonnement',
  confirmReplaceCalendar: 'Remplacer l’adresse d’agenda ? L’ancienne adresse cesse aussitôt de fonctionner : les agendas qui l’utilisent doivent s’abonner à la nouvelle.',
  confirmStopCalendar: 'Arrêter l’abonnement d’agenda ? L’adresse cesse aussitôt de fonctionner, et les agendas qui l’utilisent ne reçoivent plus d’activités.',
  calendarAddress: 'Ton adresse d’agenda',
  calendarAddressOnce: 'Copie l’adresse maintenant, ou scanne le code avec ton téléphone : elle n’est montrée que cette fois.',
  calendarPrivacy:
    'L’agenda montre les prénoms de tes enfants avec les activités, donc où et quand ils seront. Ne donne l’adresse qu’à ton application d’agenda. Si elle a pu tomber entre de mauvaises mains (une capture d’écran partagée, un téléphone perdu), remplace l’adresse ou arrête l’abonnement.',
  calendarQrCode: 'Code QR de l’adresse d’agenda, à scanner avec un téléphone',
  calendarAddressCopied: 'Adresse copiée.',
  calendarCreated: 'Ton adresse d’agenda est prête.',
  calendarReplaced: 'Ta nouvelle adresse d’agenda est prête. L’ancienne ne fonctionne plus.',
  calendarStopped: 'L’abonnement d’agenda est arrêté. Son adresse ne fonctionne plus.',
  subscribeTitle: 'Comment s’abonner',
  subscribeHint: 'Abonne-toi à l’adresse comme agenda « à partir d’une URL ». Ne l’importe pas une seule fois comme fichier : il ne serait pas mis à jour.',
  subscribeIphone: 'Sur iPhone ou iPad',
  subscribeIphoneSteps: 'Réglages → Calendrier → Comptes → Ajouter un compte → Autre → Ajouter un calendrier avec abonnement ; colle l’adresse. Sur Mac : Calendrier → Fichier → Nouvel abonnement à un calendrier.',
  subscribeAndroid: 'Sur Android, avec Google Agenda',
  subscribeAndroidSteps:
    'Dans Google Agenda sur le web : Autres agendas → + → À partir de l’URL ; colle l’adresse. Sur le téléphone, active la synchronisation de cet agenda dans les paramètres de l’application Google Agenda. Google le met à jour à son rythme, souvent toutes les quelques heures seulement.',
  subscribeOutlook: 'Avec Outlook',
  subscribeOutlookSteps: 'Outlook sur le web : Ajouter un calendrier → S’abonner à partir du web. Outlook pour Windows : Ajouter un calendrier → À partir d’Internet. Colle l’adresse.',
  calendarOnProfile: 'Nos activités dans mon agenda',
  calendarOnProfileHint: 'Tes activités et celles de tes enfants dans l’agenda de ton téléphone, toujours à jour.',
  downloadIcs: 'Télécharger pour mon agenda (.ics)',
  downloadContacts: 'Télécharger les contacts (vCard)',
  downloadContact: 'Télécharger le contact (vCard)',
};
