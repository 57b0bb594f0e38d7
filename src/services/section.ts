import type { Section } from '../core/recovery';
import { CliError } from '../beads/errors';
import { errorMessage } from '../core/errors';

/**
 * Runs one query of a refresh so that its failure empties only its own section.
 * Cancellation is not a failure: it propagates, so the whole refresh stops quietly.
 */
export async function section<T>(query: () => Promise<T>): Promise<Section<T>> {
  try {
    return { ok: true, value: await query() };
  } catch (error) {
    if (error instanceof CliError && error.kind === 'canceled') throw error;
    return { ok: false, error: errorMessage(error) };
  }
}
