/** The text of anything thrown: an Error's message, else the value as a string. */
export function errorMessage(error: unknown): string {
  // The one place a thrown value becomes text (lint sends every other String(error) here).
  // eslint-disable-next-line no-restricted-syntax
  return error instanceof Error ? error.message : String(error);
}
