const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * An Intl.DateTimeFormat for these options, made once and then reused: making one costs far more than formatting
 * with it (a rush's holds each computed due dates with new ones). Only the code's own option sets and the events'
 * time zones reach here, so the map stays small.
 */
export function dateFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    formats.set(key, format);
  }
  return format;
}
