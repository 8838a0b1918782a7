/** Saves `content` as a file the browser downloads (no page is left, nothing is opened). */
export function saveFile(name: string, content: string, type: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers start the download after the click returns: keep the file a moment.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A file name's part from a person's name: letters and digits kept (accents too), the rest a dash. */
export const fileNamePart = (text: string): string => text.trim().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '') || 'person';
