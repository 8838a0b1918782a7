import { useEffect, useState } from 'preact/hooks';
import { calendarFeed } from '../calendars-api.js';
import { ShownOnce } from '../components/shown-once.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatDate, formatMoment } from '../i18n/index.js';
import { troubleOf } from '../session.js';

/** The address as a QR code (an SVG as a data: address, which the content policy allows for images); made in the page, nothing loaded from elsewhere. */
async function qrCodeOf(url: string): Promise<string> {
  // Loaded with this page only: the rest of the app does not carry the encoder.
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/**
 * "Add to my calendar": whether the reader has a calendar feed (one read), making its secret
 * address (shown once, with a copy button and a QR code), replacing it and stopping it (each asked
 * first), and how to subscribe on an iPhone, on Android and in Outlook.
 */
export function CalendarPage() {
  const app = useApp();
  const { words, language, session } = app;
  // Wrapped: "no feed" (null) is an answer, not "still loading".
  const [loaded, reload] = useLoad(async () => {
    const answer = dataOf(app, await calendarFeed.status());
    return answer ? { calendar: answer.data.calendar } : null;
  }, []);
  const [shown, setShown] = useState<string | null>(null);
  const [qrCode, setQrCode] = useState<string | null>(null);
  useEffect(() => {
    setQrCode(null);
    if (shown === null) return;
    let current = true;
    void qrCodeOf(shown)
      .then((image) => current && setQrCode(image))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [shown]);

  const create = async (replacing: boolean) => {
    // A new address ends the old one at once: the calendars that use it stop updating.
    if (replacing && !confirm(words.confirmReplaceCalendar)) return;
    const made = dataOf(app, await calendarFeed.create());
    if (!made) return;
    setShown(made.data.calendar.url);
    app.announce(replacing ? words.calendarReplaced : words.calendarCreated);
    reload();
  };
  const stop = async () => {
    if (!confirm(words.confirmStopCalendar)) return;
    const result = await calendarFeed.end();
    if (!result.response.ok) return app.report(troubleOf(result.response, result.error));
    setShown(null);
    app.announce(words.calendarStopped);
    reload();
  };

  const feed = loaded?.calendar;
  return (
    <>
      <section class="card calendar" aria-labelledby="calendar-title">
        <h1 id="calendar-title" tabIndex={-1}>
          {words.addToCalendar}
        </h1>
        <p>{words.calendarIntro}</p>
        {loaded === null ? (
          <p aria-busy="true">…</p>
        ) : feed ? (
          <p data-testid="calendar-status">
            {words.calendarSince(formatDate(feed.created_at, language, session.timeZone))}{' '}
            {feed.last_used_at ? words.calendarLastFetched(formatMoment(feed.last_used_at, language, session.timeZone)) : words.calendarNeverFetched}
          </p>
        ) : (
          <p class="muted" data-testid="calendar-status">
            {words.calendarNone}
          </p>
        )}
        {shown && (
          <div class="calendar-address">
            <ShownOnce key={shown} label={words.calendarAddress} warning={words.calendarAddressOnce} value={shown} copiedText={words.calendarAddressCopied} />
            {qrCode && <img class="qr-code" src={qrCode} alt={words.calendarQrCode} width={200} height={200} />}
          </div>
        )}
        {feed && !shown && <p class="muted">{words.calendarNotShownAgain}</p>}
        {/* Beside the address and its copy button: what a leaked address shows, and what to do then. */}
        <p class="notice">{words.calendarPrivacy}</p>
        {loaded !== null && (
          <div class="actions">
            {feed ? (
              <>
                <button type="button" class="secondary-dark" onClick={() => void create(true)}>
                  {words.replaceCalendarAddress}
                </button>
                <button type="button" class="danger" onClick={() => void stop()}>
                  {words.stopCalendarFeed}
                </button>
              </>
            ) : (
              <button type="button" onClick={() => void create(false)}>
                {words.createCalendarAddress}
              </button>
            )}
          </div>
        )}
      </section>
      <section class="card subscribe" aria-labelledby="subscribe-title">
        <h2 id="subscribe-title">{words.subscribeTitle}</h2>
        <p>{words.subscribeHint}</p>
        <h3>{words.subscribeIphone}</h3>
        <p>{words.subscribeIphoneSteps}</p>
        <h3>{words.subscribeAndroid}</h3>
        <p>{words.subscribeAndroidSteps}</p>
        <h3>{words.subscribeOutlook}</h3>
        <p>{words.subscribeOutlookSteps}</p>
      </section>
    </>
  );
}
