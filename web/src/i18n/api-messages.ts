import { formatNumber, wordsFor, type Language } from './index.js';

/**
 * The API answers in English only; the app shows its messages in the reader's language. Each row
 * is a message as the API words it (src/errors.ts and the schema messages of src/lib/validation.ts),
 * then German, then French. A `{name}` stands for a part the API fills in: `field` and `other` are
 * field names, `resource` a resource's name, `n` a number, `from` and `to` participation states;
 * any other name is shown as it came (a route, a column, a list).
 */
const MESSAGES: readonly (readonly [en: string, de: string, fr: string])[] = [
  // The request as a whole
  ['The route {route} could not be found.', 'Die Route {route} gibt es nicht.', 'La route {route} n’existe pas.'],
  [
    'The {method} method is not supported for route {route}. Supported methods: {list}.',
    'Die Methode {method} ist für die Route {route} nicht möglich. Möglich sind: {list}.',
    'La méthode {method} n’est pas prise en charge pour la route {route}. Méthodes possibles : {list}.',
  ],
  ['Malformed JSON body.', 'Der JSON-Inhalt ist fehlerhaft.', 'Le contenu JSON est mal formé.'],
  ['Payload Too Large.', 'Die Anfrage ist zu gross.', 'La requête est trop volumineuse.'],
  [
    'Unsupported Media Type. Send JSON with Content-Type: application/json.',
    'Dieses Format wird nicht unterstützt. Sende JSON mit Content-Type: application/json.',
    'Ce format n’est pas pris en charge. Envoie du JSON avec Content-Type: application/json.',
  ],
  [
    'Unsupported Media Type. Send CSV with Content-Type: text/csv.',
    'Dieses Format wird nicht unterstützt. Sende CSV mit Content-Type: text/csv.',
    'Ce format n’est pas pris en charge. Envoie du CSV avec Content-Type: text/csv.',
  ],
  ['Unauthenticated.', 'Du bist nicht angemeldet.', 'Tu n’es pas connecté·e.'],
  ['Login Fail, pls check password', 'Anmeldung fehlgeschlagen. Bitte prüfe das Passwort.', 'La connexion a échoué. Vérifie le mot de passe.'],
  ['Invalid ability provided.', 'Dieser Zugang hat dafür keine Berechtigung.', 'Cet accès n’a pas l’autorisation nécessaire.'],
  ['This action is unauthorized.', 'Dazu bist du nicht berechtigt.', 'Tu n’as pas le droit de faire cela.'],
  ['HTTPS required.', 'Nur über HTTPS möglich.', 'Possible uniquement en HTTPS.'],
  ['Tenant not found.', 'Diese Organisation gibt es nicht.', 'Cette organisation n’existe pas.'],
  ['{resource} not found.', '{resource} nicht gefunden.', '{resource} introuvable.'],
  ['A request with this Idempotency-Key is in progress.', 'Eine Anfrage mit diesem Idempotency-Key läuft noch.', 'Une requête avec cet Idempotency-Key est encore en cours.'],
  ['The change feed no longer reaches back that far.', 'Die Änderungen reichen nicht mehr so weit zurück.', 'Les modifications ne remontent plus aussi loin.'],
  ['The resource was changed by someone else.', 'Jemand anderes hat das inzwischen geändert.', 'Quelqu’un d’autre a modifié cela entre-temps.'],
  ['Too Many Attempts.', 'Zu viele Versuche.', 'Trop de tentatives.'],
  ['CSRF token mismatch.', 'Die Sitzung passt nicht mehr. Lade die Seite neu.', 'La session ne correspond plus. Recharge la page.'],
  ['Server Error', 'Fehler auf dem Server', 'Erreur du serveur'],
  ['Service Unavailable', 'Der Dienst ist gerade nicht erreichbar.', 'Le service est momentanément indisponible.'],
  ['The given data was invalid.', 'Die Angaben sind ungültig.', 'Les données ne sont pas valables.'],
  // A field's value
  ['The {field} field is required.', 'Das Feld {field} muss ausgefüllt sein.', 'Le champ {field} est obligatoire.'],
  ['The {field} field is required when {other} is not present.', 'Das Feld {field} muss ausgefüllt sein, wenn {other} fehlt.', 'Le champ {field} est obligatoire quand le champ {other} est absent.'],
  ['The {field} field is invalid.', 'Das Feld {field} ist ungültig.', 'Le champ {field} n’est pas valable.'],
  ['The {field} field is prohibited.', 'Das Feld {field} ist hier nicht erlaubt.', 'Le champ {field} n’est pas autorisé ici.'],
  ['The {field} field prohibits {other} from being present.', 'Neben dem Feld {field} ist {other} nicht erlaubt.', 'Le champ {other} n’est pas autorisé avec le champ {field}.'],
  ['The {field} has already been taken.', 'Der Wert im Feld {field} ist bereits vergeben.', 'La valeur du champ {field} est déjà utilisée.'],
  ['The {field} field confirmation does not match.', 'Die Bestätigung im Feld {field} stimmt nicht überein.', 'La confirmation du champ {field} ne correspond pas.'],
  ['The password is incorrect.', 'Das Passwort ist falsch.', 'Le mot de passe est incorrect.'],
  ['The selected {field} is invalid.', 'Die Auswahl im Feld {field} ist ungültig.', 'La sélection du champ {field} n’est pas valable.'],
  ['The {field} field must be a date after now.', 'Das Feld {field} muss ein Datum in der Zukunft sein.', 'Le champ {field} doit être une date dans le futur.'],
  ['The {field} field must be a date after or equal to {other}.', 'Das Feld {field} muss ein Datum am oder nach {other} sein.', 'Le champ {field} doit être une date égale ou postérieure au champ {other}.'],
  ['The {field} field must be a date before or equal to {other}.', 'Das Feld {field} muss ein Datum am oder vor {other} sein.', 'Le champ {field} doit être une date égale ou antérieure au champ {other}.'],
  ['The {field} field must be true or false.', 'Das Feld {field} muss ja oder nein sein.', 'Le champ {field} doit être oui ou non.'],
  ['The {field} field must be a string.', 'Das Feld {field} muss ein Text sein.', 'Le champ {field} doit être un texte.'],
  ['The {field} field must be an integer.', 'Das Feld {field} muss eine ganze Zahl sein.', 'Le champ {field} doit être un nombre entier.'],
  ['The {field} field must be a number.', 'Das Feld {field} muss eine Zahl sein.', 'Le champ {field} doit être un nombre.'],
  ['The {field} field must be an array.', 'Das Feld {field} muss eine Liste sein.', 'Le champ {field} doit être une liste.'],
  ['The {field} field must be an object.', 'Das Feld {field} muss ein Objekt sein.', 'Le champ {field} doit être un objet.'],
  ['The {field} field must be of type {type}.', 'Das Feld {field} muss vom Typ {type} sein.', 'Le champ {field} doit être de type {type}.'],
  ['The {field} field must not be greater than {n} characters.', 'Das Feld {field} darf höchstens {n} Zeichen lang sein.', 'Le champ {field} ne doit pas dépasser {n} caractères.'],
  ['The {field} field must be at least {n} characters.', 'Das Feld {field} muss mindestens {n} Zeichen lang sein.', 'Le champ {field} doit compter au moins {n} caractères.'],
  ['The {field} field must not be greater than {n}.', 'Das Feld {field} darf nicht grösser als {n} sein.', 'Le champ {field} ne doit pas dépasser {n}.'],
  ['The {field} field must be at least {n}.', 'Das Feld {field} muss mindestens {n} sein.', 'Le champ {field} doit valoir au moins {n}.'],
  ['The {field} field must not have more than {n} items.', 'Das Feld {field} darf höchstens {n} Einträge haben.', 'Le champ {field} ne doit pas avoir plus de {n} éléments.'],
  ['The {field} field must have at least {n} items.', 'Das Feld {field} muss mindestens {n} Einträge haben.', 'Le champ {field} doit avoir au moins {n} éléments.'],
  ['The {field} field must be a valid email address.', 'Das Feld {field} muss eine gültige E-Mail-Adresse sein.', 'Le champ {field} doit être une adresse e-mail valable.'],
  ['The {field} field must be a valid date.', 'Das Feld {field} muss ein gültiges Datum sein.', 'Le champ {field} doit être une date valable.'],
  ['The {field} field must be a valid timezone.', 'Das Feld {field} muss eine gültige Zeitzone sein.', 'Le champ {field} doit être un fuseau horaire valable.'],
  ['The {field} field is too long.', 'Das Feld {field} ist zu lang.', 'Le champ {field} est trop long.'],
  ['The {field} field format is invalid.', 'Das Feld {field} hat ein ungültiges Format.', 'Le format du champ {field} n’est pas valable.'],
  ['The {field} field has a duplicate value.', 'Das Feld {field} enthält einen Wert doppelt.', 'Le champ {field} contient une valeur en double.'],
  // Tokens
  ['The name {name} is reserved.', 'Der Name {name} ist reserviert.', 'Le nom {name} est réservé.'],
  [
    'The abilities field may not grant what this token lacks: {list}.',
    'Das Feld Berechtigungen darf nichts geben, was diesem Token fehlt: {list}.',
    'Le champ autorisations ne peut pas accorder ce qui manque à ce jeton : {list}.',
  ],
  [
    'The expires at field may not be later than this token\'s own expiry, {moment}.',
    'Das Feld Ablaufdatum darf nicht nach dem Ablauf dieses Tokens liegen, {moment}.',
    'Le champ date d’expiration ne peut pas dépasser l’expiration de ce jeton, {moment}.',
  ],
  // The CSV import
  ['The password column cannot be imported.', 'Die Spalte password kann nicht importiert werden.', 'La colonne password ne peut pas être importée.'],
  ['The file has an unknown column: {column}.', 'Die Datei hat eine unbekannte Spalte: {column}.', 'Le fichier contient une colonne inconnue : {column}.'],
  ['Column {n} of the header has no name.', 'Spalte {n} der Kopfzeile hat keinen Namen.', 'La colonne {n} de l’en-tête n’a pas de nom.'],
  ['The column {column} appears more than once.', 'Die Spalte {column} kommt mehr als einmal vor.', 'La colonne {column} apparaît plus d’une fois.'],
  ['The file must have a header row.', 'Die Datei braucht eine Kopfzeile.', 'Le fichier doit avoir une ligne d’en-tête.'],
  ['The file must be UTF-8 text.', 'Die Datei muss UTF-8-Text sein.', 'Le fichier doit être du texte UTF-8.'],
  ['The file must not have more than {n} rows.', 'Die Datei darf höchstens {n} Zeilen haben.', 'Le fichier ne doit pas dépasser {n} lignes.'],
  ['A quoted cell that begins in row {n} is never closed.', 'Eine Zelle in Anführungszeichen ab Zeile {n} wird nie geschlossen.', 'Une cellule entre guillemets commencée à la ligne {n} n’est jamais fermée.'],
  ['A quoted cell in row {n} has text after its closing quote.', 'Eine Zelle in Zeile {n} hat Text nach dem schliessenden Anführungszeichen.', 'Une cellule de la ligne {n} contient du texte après le guillemet fermant.'],
  ['The file is not valid CSV from row {n} on.', 'Ab Zeile {n} ist die Datei kein gültiges CSV.', 'À partir de la ligne {n}, le fichier n’est pas un CSV valable.'],
  ['The row has more cells than the header has columns.', 'Die Zeile hat mehr Zellen, als die Kopfzeile Spalten hat.', 'La ligne a plus de cellules que l’en-tête n’a de colonnes.'],
  ['The username field cannot be set by import.', 'Das Feld Benutzername kann nicht importiert werden.', 'Le champ nom d’utilisateur ne peut pas être importé.'],
  ['The email has already been taken in row {n}.', 'Die E-Mail-Adresse ist bereits in Zeile {n} vergeben.', 'L’adresse e-mail est déjà utilisée à la ligne {n}.'],
  ['The row matches the same person as row {n}.', 'Die Zeile passt auf dieselbe Person wie Zeile {n}.', 'La ligne correspond à la même personne que la ligne {n}.'],
  ['You may not change the person this row matches.', 'Du darfst die Person dieser Zeile nicht ändern.', 'Tu n’as pas le droit de modifier la personne de cette ligne.'],
  // The import of spreadsheets (XLSX, other CSV dialects, header names and value forms)
  ['The columns "{column}" and "{header}" both mean {field}.', 'Die Spalten "{column}" und "{header}" meinen beide das Feld {field}.', 'Les colonnes « {column} » et « {header} » désignent toutes deux le champ {field}.'],
  ['Dates like 03/24/2014 are read day first; use 24.03.2014.', 'Daten wie 03/24/2014 werden mit dem Tag zuerst gelesen; schreibe 24.03.2014.', 'Les dates comme 03/24/2014 se lisent jour en premier ; écris 24.03.2014.'],
  ['The {field} field must be a date such as 2014-03-04 or 04.03.2014.', 'Das Feld {field} muss ein Datum wie 2014-03-04 oder 04.03.2014 sein.', 'Le champ {field} doit être une date comme 2014-03-04 ou 04.03.2014.'],
  [
    'The {field} field must be yes or no, such as true/false, yes/no, ja/nein, oui/non, wahr/falsch, vrai/faux, 1/0 or x/empty.',
    'Das Feld {field} muss ja oder nein sein, etwa true/false, yes/no, ja/nein, oui/non, wahr/falsch, vrai/faux, 1/0 oder x/leer.',
    'Le champ {field} doit être oui ou non, par exemple true/false, yes/no, ja/nein, oui/non, wahr/falsch, vrai/faux, 1/0 ou x/vide.',
  ],
  ['The file must be UTF-16 text, as its byte order mark says.', 'Die Datei muss UTF-16-Text sein, wie ihre Byte-Order-Markierung sagt.', 'Le fichier doit être du texte UTF-16, comme l’indique son indicateur d’ordre des octets.'],
  ['The charset of the file must be utf-8, windows-1252 or iso-8859-1.', 'Der Zeichensatz der Datei muss utf-8, windows-1252 oder iso-8859-1 sein.', 'Le jeu de caractères du fichier doit être utf-8, windows-1252 ou iso-8859-1.'],
  ['The file is not a readable XLSX workbook.', 'Die Datei ist keine lesbare XLSX-Arbeitsmappe.', 'Le fichier n’est pas un classeur XLSX lisible.'],
  ['The {field} cell holds the spreadsheet error {value}.', 'Die Zelle {field} enthält den Tabellenfehler {value}.', 'La cellule {field} contient l’erreur de tableur {value}.'],
  // The domain's rules
  ['The url must be a public https address.', 'Die URL muss eine öffentliche https-Adresse sein.', 'L’URL doit être une adresse https publique.'],
  ['The Idempotency-Key was used for another request.', 'Der Idempotency-Key wurde schon für eine andere Anfrage verwendet.', 'Cet Idempotency-Key a déjà servi pour une autre requête.'],
  [
    'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
    'Der Header Idempotency-Key muss 1 bis 255 sichtbare ASCII-Zeichen lang sein.',
    'L’en-tête Idempotency-Key doit compter de 1 à 255 caractères ASCII visibles.',
  ],
  ['The group still has subgroups.', 'Die Gruppe hat noch Untergruppen.', 'Le groupe a encore des sous-groupes.'],
  ['The group still has active memberships.', 'Die Gruppe hat noch aktive Mitglieder.', 'Le groupe a encore des membres actifs.'],
  ['The group still has upcoming events.', 'Die Gruppe hat noch bevorstehende Anlässe.', 'Le groupe a encore des activités à venir.'],
  ['The root group cannot be deleted or moved.', 'Die oberste Gruppe kann weder gelöscht noch verschoben werden.', 'Le groupe principal ne peut être ni supprimé ni déplacé.'],
  ['The group cannot be moved below itself.', 'Eine Gruppe kann nicht unter sich selbst verschoben werden.', 'Un groupe ne peut pas être déplacé sous lui-même.'],
  ['The role type is still in use.', 'Die Rolle wird noch verwendet.', 'Ce rôle est encore utilisé.'],
  ['The person already has this role in this group.', 'Die Person hat diese Rolle in dieser Gruppe bereits.', 'La personne a déjà ce rôle dans ce groupe.'],
  ['The last administrator cannot be removed.', 'Die letzte Person mit Administrationsrechten kann nicht entfernt werden.', 'La dernière personne ayant les droits d’administration ne peut pas être retirée.'],
  ['The guardian must be another person.', 'Die erziehungsberechtigte Person muss eine andere Person sein.', 'Le représentant légal doit être une autre personne.'],
  ['The person is already a guardian.', 'Die Person ist bereits erziehungsberechtigt.', 'Cette personne est déjà représentant légal.'],
  ['Registration is closed.', 'Die Anmeldung ist geschlossen.', 'Les inscriptions sont closes.'],
  ['The person is already registered.', 'Die Person ist bereits angemeldet.', 'Cette personne est déjà inscrite.'],
  ['The event is full.', 'Der Anlass ist ausgebucht.', 'L’activité est complète.'],
  ['The event has no waiting list.', 'Der Anlass hat keine Warteliste.', 'L’activité n’a pas de liste d’attente.'],
  ['The event has participants.', 'Der Anlass hat Teilnehmende.', 'L’activité a des participant·e·s.'],
  ['The state cannot change from {from} to {to}.', 'Der Status kann nicht von «{from}» zu «{to}» wechseln.', 'Le statut ne peut pas passer de « {from} » à « {to} ».'],
  [
    'The capacity may not be less than the accepted participants.',
    'Es darf nicht weniger Plätze geben als angenommene Teilnehmende.',
    'Le nombre de places ne peut pas être inférieur au nombre de participant·e·s accepté·e·s.',
  ],
  ['The attended field may only be set on accepted participations.', 'Das Feld Teilgenommen gilt nur für angenommene Teilnahmen.', 'Le champ présence ne s’applique qu’aux participations acceptées.'],
  // Mail: links from mails, invitations, messages
  ['If the address is known, a link is on its way.', 'Ist die Adresse bekannt, ist ein Link unterwegs.', 'Si l’adresse est connue, un lien est en route.'],
  ['The reset link is invalid or has expired.', 'Der Link zum Zurücksetzen ist ungültig oder abgelaufen.', 'Le lien de réinitialisation n’est pas valable ou a expiré.'],
  ['The invitation is invalid or has expired.', 'Die Einladung ist ungültig oder abgelaufen.', 'L’invitation n’est pas valable ou a expiré.'],
  ['The person is deactivated.', 'Die Person ist deaktiviert.', 'La personne est désactivée.'],
  ['The person already has a login.', 'Die Person hat bereits einen Zugang.', 'La personne a déjà un accès.'],
  ['The person has no e-mail address.', 'Die Person hat keine E-Mail-Adresse.', 'La personne n’a pas d’adresse e-mail.'],
  ['The e-mail address was refused before.', 'Die E-Mail-Adresse wurde schon früher abgewiesen.', 'L’adresse e-mail a déjà été refusée auparavant.'],
  ['The mail could not be sent.', 'Die Mail konnte nicht gesendet werden.', 'Le message n’a pas pu être envoyé.'],
  ['The {field} field must not contain line breaks.', 'Das Feld {field} darf keine Zeilenumbrüche enthalten.', 'Le champ {field} ne doit pas contenir de retours à la ligne.'],
];

/**
 * Field and resource names as the API's messages show them (underscores as spaces), in German and
 * French. A bulk field (`person ids.4`, `participations.0.state`) is named part by part.
 */
export const FIELD_NAMES: Readonly<Record<string, readonly [de: string, fr: string]>> = {
  abilities: ['Berechtigungen', 'autorisations'],
  'active on': ['Stichtag', 'date de référence'],
  after: ['Startnummer', 'numéro de départ'],
  all: ['Alle', 'tous'],
  attended: ['Teilgenommen', 'présence'],
  below: ['Unterhalb', 'en dessous'],
  birthday: ['Geburtstag', 'date de naissance'],
  body: ['Nachricht', 'texte du message'],
  // `Calendar not found.` (a feed's address): through `{resource} not found.`
  calendar: ['Kalender', 'agenda'],
  'can swimm': ['Kann schwimmen', 'sait nager'],
  capacity: ['Plätze', 'nombre de places'],
  city: ['Ort', 'localité'],
  'current password': ['Aktuelles Passwort', 'mot de passe actuel'],
  cursor: ['Seitenmarke', 'curseur'],
  description: ['Beschreibung', 'description'],
  details: ['Details', 'détails'],
  'dry run': ['Probelauf', 'essai'],
  email: ['E-Mail', 'e-mail'],
  enabled: ['Aktiv', 'activé'],
  'end on': ['Enddatum', 'date de fin'],
  'event id': ['Anlass', 'activité'],
  'ends at': ['Ende', 'fin'],
  entities: ['Objektarten', 'types d’objets'],
  event: ['Anlass', 'activité'],
  'expires at': ['Ablaufdatum', 'date d’expiration'],
  file: ['Datei', 'fichier'],
  firstname: ['Vorname', 'prénom'],
  format: ['Format', 'format de fichier'],
  from: ['Zeitraum ab', 'début de la période'],
  'gender id': ['Geschlecht', 'genre'],
  group: ['Gruppe', 'groupe'],
  'group id': ['Gruppe', 'groupe'],
  guardian: ['Erziehungsberechtigte Person', 'représentant légal'],
  'guardian id': ['Erziehungsberechtigte Person', 'représentant légal'],
  'guardian of': ['Erziehungsberechtigt für', 'représentant légal de'],
  guardians: ['Erziehungsberechtigte', 'représentants légaux'],
  housenumber: ['Hausnummer', 'numéro'],
  id: ['ID', 'identifiant'],
  'idempotency key': ['Idempotency-Key', 'Idempotency-Key'],
  'ignore unknown': ['Unbekannte ignorieren', 'ignorer les inconnues'],
  ids: ['IDs', 'identifiants'],
  include: ['Mit Angaben', 'avec les détails'],
  'is vegetarian': ['Vegetarisch', 'végétarien·ne'],
  key: ['Schlüssel', 'clé'],
  kind: ['Art', 'type'],
  label: ['Bezeichnung', 'libellé'],
  lastname: ['Nachname', 'nom de famille'],
  limit: ['Anzahl', 'nombre'],
  locale: ['Sprache', 'langue'],
  location: ['Ort', 'lieu'],
  membership: ['Mitgliedschaft', 'appartenance'],
  memberships: ['Mitgliedschaften', 'appartenances'],
  message: ['Nachricht', 'message'],
  name: ['Name', 'nom'],
  notes: ['Notizen', 'remarques'],
  'parent id': ['Übergeordnete Gruppe', 'groupe parent'],
  participation: ['Teilnahme', 'participation'],
  participations: ['Teilnahmen', 'participations'],
  password: ['Passwort', 'mot de passe'],
  'password confirmation': ['Passwort-Bestätigung', 'confirmation du mot de passe'],
  permission: ['Berechtigung', 'droit'],
  person: ['Person', 'personne'],
  'person id': ['Person', 'personne'],
  'person ids': ['Personen', 'personnes'],
  phonenumber: ['Telefon', 'téléphone'],
  'phonenumber mobile': ['Mobiltelefon', 'téléphone mobile'],
  q: ['Suchbegriff', 'recherche'],
  recipients: ['Empfänger:innen', 'destinataires'],
  'registration closes at': ['Anmeldeschluss', 'fin des inscriptions'],
  'registration opens at': ['Anmeldebeginn', 'ouverture des inscriptions'],
  remember: ['Angemeldet bleiben', 'rester connecté·e'],
  'requires approval': ['Bestätigung nötig', 'validation requise'],
  role: ['Rolle', 'rôle'],
  'role type': ['Rolle', 'rôle'],
  'role types': ['Rollen', 'rôles'],
  scope: ['Geltungsbereich', 'portée'],
  sort: ['Sortierung', 'tri'],
  'start on': ['Startdatum', 'date de début'],
  'starts at': ['Beginn', 'début'],
  state: ['Status', 'statut'],
  states: ['Status', 'statuts'],
  street: ['Strasse', 'rue'],
  subject: ['Betreff', 'objet'],
  timezone: ['Zeitzone', 'fuseau horaire'],
  to: ['Zeitraum bis', 'fin de la période'],
  token: ['Token', 'jeton'],
  'type id': ['Typ', 'type'],
  'updated since': ['Geändert seit', 'modifié depuis'],
  url: ['URL', 'URL'],
  username: ['Benutzername', 'nom d’utilisateur'],
  'waiting list': ['Warteliste', 'liste d’attente'],
  webhook: ['Webhook', 'webhook'],
  zip: ['PLZ', 'NPA'],
};

const STATES = ['pending', 'accepted', 'waitlisted', 'rejected', 'cancelled'] as const;
const isState = (value: string): value is (typeof STATES)[number] => (STATES as readonly string[]).includes(value);

const PLACEHOLDER = /\{(\w+)\}/g;
const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

interface Pattern {
  regex: RegExp;
  names: string[];
  de: string;
  fr: string;
}

/** The rows as patterns, made at the first message shown (not at start-up). */
let patterns: Pattern[] | null = null;
function compiled(): Pattern[] {
  patterns ??= MESSAGES.map(([en, de, fr]) => {
    const parts = en.split(PLACEHOLDER);
    // split() with a group alternates text and placeholder names.
    const names = parts.filter((_, index) => index % 2 === 1);
    const source = parts.map((part, index) => (index % 2 === 0 ? escape(part) : part === 'n' ? '(-?\\d+(?:\\.\\d+)?)' : '(.+?)')).join('');
    return { regex: new RegExp(`^${source}$`), names, de, fr };
  });
  return patterns;
}

const nameIn = (name: string, language: Exclude<Language, 'en'>): string | undefined =>
  Object.hasOwn(FIELD_NAMES, name) ? FIELD_NAMES[name]![language === 'de' ? 0 : 1] : undefined;

/**
 * A field name the app knows, part by part; an unknown part stays as the API wrote it. `to` with
 * parts of its own (`to.group id`) is a message's recipients, not the end of a period.
 */
const fieldIn = (field: string, language: Exclude<Language, 'en'>): string =>
  field
    .split('.')
    .map((part, index, parts) => nameIn(index === 0 && part === 'to' && parts.length > 1 ? 'recipients' : part, language) ?? part)
    .join('.');

function filledIn(name: string, value: string, language: Exclude<Language, 'en'>): string {
  switch (name) {
    case 'field':
    case 'other':
      return fieldIn(value, language);
    case 'resource': {
      const word = nameIn(value.toLowerCase(), language) ?? value;
      return word.charAt(0).toUpperCase() + word.slice(1);
    }
    case 'n':
      return formatNumber(Number(value), language);
    case 'from':
    case 'to':
      return isState(value) ? wordsFor(language)[value] : value;
    default:
      return value;
  }
}

/** "(and 2 more errors)", which a 422's message adds to its first field message. */
const MORE_ERRORS = / \(and (\d+) more errors?\)$/;
const moreErrors = (count: number, language: Exclude<Language, 'en'>): string =>
  language === 'de' ? ` (und ${count} weitere${count === 1 ? 'r' : ''} Fehler)` : ` (et ${count} autre${count === 1 ? '' : 's'} erreur${count === 1 ? '' : 's'})`;

/** A message of the API in the reader's language; one the table does not know is shown as it came. */
export function translateApiMessage(message: string, language: Language): string {
  if (language === 'en') return message;
  const more = MORE_ERRORS.exec(message);
  const head = more ? message.slice(0, more.index) : message;
  for (const pattern of compiled()) {
    const match = pattern.regex.exec(head);
    if (!match) continue;
    const values = new Map(pattern.names.map((name, index) => [name, match[index + 1] ?? '']));
    const translated = pattern[language].replace(PLACEHOLDER, (_, name: string) => filledIn(name, values.get(name) ?? '', language));
    return more ? translated + moreErrors(Number(more[1]), language) : translated;
  }
  return message;
}

/** A field's messages (a 422's `errors` entry), translated and joined for showing beside it. */
export const translateApiMessages = (messages: readonly string[], language: Language): string =>
  messages.map((message) => translateApiMessage(message, language)).join(' ');
