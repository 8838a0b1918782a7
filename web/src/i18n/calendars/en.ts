/** The words of calendar feeds, .ics files and contact downloads, in English: the reference. */
export const calendarWordsEn = {
  // The calendar page ("add to my calendar").
  addToCalendar: 'Add to my calendar',
  calendarIntro:
    "A secret address for the calendar of your phone or computer. It holds the events you and your wards are registered for, and those open to you for registration, and the calendar keeps them up to date by itself.",
  calendarNone: 'You have no calendar address yet.',
  calendarSince: (created: string) => `Your calendar address was created on ${created}.`,
  calendarLastFetched: (moment: string) => `A calendar last fetched it on ${moment}.`,
  calendarNeverFetched: 'No calendar has fetched it yet.',
  calendarNotShownAgain: 'The address itself is shown only when it is made. If you no longer have it, replace it.',
  createCalendarAddress: 'Create the address',
  replaceCalendarAddress: 'Replace the address',
  stopCalendarFeed: 'Stop the feed',
  confirmReplaceCalendar: 'Replace the calendar address? The old address stops working at once: calendars that use it must subscribe to the new one.',
  confirmStopCalendar: 'Stop the calendar feed? Its address stops working at once, and calendars that use it receive no more events.',
  calendarAddress: 'Your calendar address',
  calendarAddressOnce: 'Copy the address now, or scan the code with your phone: it is shown only this once.',
  calendarPrivacy:
    "The calendar shows your children's first names with the events, and so where and when they will be. Give the address only to your calendar app. If it may have leaked (a shared screenshot, a lost phone), replace the address or stop the feed.",
  calendarQrCode: 'QR code of the calendar address, to scan with a phone',
  calendarAddressCopied: 'Address copied.',
  calendarCreated: 'Your calendar address is ready.',
  calendarReplaced: 'Your new calendar address is ready. The old one no longer works.',
  calendarStopped: 'The calendar feed is stopped. Its address no longer works.',
  subscribeTitle: 'How to subscribe',
  subscribeHint: 'Subscribe to the address as a calendar "from a URL". Do not import it once as a file: it would not update.',
  subscribeIphone: 'On an iPhone or iPad',
  subscribeIphoneSteps: 'Settings → Calendar → Accounts → Add Account → Other → Add Subscribed Calendar; paste the address. On a Mac: Calendar → File → New Calendar Subscription.',
  subscribeAndroid: 'On Android, with Google Calendar',
  subscribeAndroidSteps:
    "In Google Calendar on the web: Other calendars → + → From URL; paste the address. On the phone, turn on sync for this calendar in the settings of the Google Calendar app. Google refreshes it on its own schedule, often only every few hours.",
  subscribeOutlook: 'With Outlook',
  subscribeOutlookSteps: 'Outlook on the web: Add calendar → Subscribe from web. Outlook for Windows: Add Calendar → From Internet. Paste the address.',
  calendarOnProfile: 'Our events in my calendar',
  calendarOnProfileHint: 'Your and your wards\' events in the calendar of your phone, kept up to date.',
  // One event as a file; contacts as vCards.
  downloadIcs: 'Download for my calendar (.ics)',
  downloadContacts: 'Download contacts (vCard)',
  downloadContact: 'Download the contact (vCard)',
};

export type CalendarWords = typeof calendarWordsEn;
