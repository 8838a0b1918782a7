import { linkedParts } from '../../lib/links.js';
import type { Locale } from '../tenants/schemas.js';

/**
 * One look for every mail: a heading, paragraphs, an optional button, and a footer that says why
 * the reader gets it. Each mail has the same words as plain text and as HTML; in the HTML every
 * character of the content is escaped and only http(s):// addresses become links.
 */
export interface MailContent {
  locale: Locale;
  /** The tenant's name: the top line of the HTML part. */
  tenantName: string;
  heading: string;
  /** Plain text; a blank line separates paragraphs, bare http(s) links become clickable in HTML. */
  body: string;
  button?: { label: string; url: string };
  /** Why the reader gets this mail; under a rule at the bottom. */
  footer: string;
}

export interface RenderedMail {
  text: string;
  html: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

/** One paragraph's HTML: escaped, line breaks kept, bare links clickable (the web app's rule: `linkedParts`). */
function paragraphHtml(paragraph: string): string {
  const html = linkedParts(paragraph)
    .map((part) => ('href' in part ? `<a href="${escapeHtml(part.href)}" style="color:#1d4ed8">${escapeHtml(part.text)}</a>` : escapeHtml(part.text)))
    .join('');
  return html.replace(/\r?\n/g, '<br>\n');
}

export const paragraphsOf = (body: string): string[] =>
  body
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');

export function renderMail(content: MailContent): RenderedMail {
  const paragraphs = paragraphsOf(content.body);
  const text = [
    content.heading,
    '',
    ...paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(content.button ? [`${content.button.label}${content.locale === 'fr' ? ' :' : ':'}`, content.button.url, ''] : []),
    '-- ',
    content.footer,
    '',
  ].join('\n');
  const button = content.button
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.button.url)}" style="background:#1d4ed8;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block;font-weight:bold">${escapeHtml(content.button.label)}</a></p>\n` +
      `<p style="font-size:13px;color:#4b5563">${escapeHtml(content.button.url)}</p>\n`
    : '';
  const html = `<!DOCTYPE html>
<html lang="${content.locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.heading)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6">
<div style="max-width:600px;margin:0 auto;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#111827;background:#ffffff">
<p style="margin:0 0 8px;font-size:13px;color:#4b5563">${escapeHtml(content.tenantName)}</p>
<h1 style="margin:0 0 16px;font-size:22px">${escapeHtml(content.heading)}</h1>
${paragraphs.map((paragraph) => `<p style="margin:0 0 16px">${paragraphHtml(paragraph)}</p>`).join('\n')}
${button}<hr style="border:none;border-top:1px solid #e5e7eb;margin:24px 0 12px">
<p style="margin:0;font-size:13px;color:#4b5563">${escapeHtml(content.footer)}</p>
</div>
</body>
</html>
`;
  return { text, html };
}

/** A From name for a header: control characters removed, length bounded (nodemailer encodes it, RFC 2047). */
export const headerName = (name: string): string => name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim().slice(0, 200);
