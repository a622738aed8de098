/**
 * Prices cross the JSON boundary as numbers but are stored and computed as exact decimals. A JSON number
 * with at most 12 significant digits round-trips through a double exactly at 2 decimals, so converting at
 * the edge with toFixed(2) / Number() never changes a price.
 */
import { validationFailed, type FieldPath } from '../errors.ts';

/**
 * The decimal text of a price that has at most 2 fraction digits. The check is exact: the double must
 * be the one its own 2-decimal rounding parses to (10.999 rounds to "11.00", which is another number).
 * ajv's `multipleOf: 0.01` cannot do this: its quotient carries float error that grows with magnitude.
 */
export function priceToDecimal(price: number, field: FieldPath = ['price']): string {
  const text = price.toFixed(2);
  if (Number(text) !== price) throw validationFailed([{ field, message: 'must have at most 2 fraction digits' }]);
  return text;
}

export function decimalToPrice(decimal: string): number {
  return Number(decimal);
}

/**
 * A price as text in XML and CSV: always 2 decimals (`9.50`), so both formats read alike. JSON keeps
 * the number itself. Exact for the prices this service holds (see the note at the top).
 */
export function formatPrice(price: number): string {
  return price.toFixed(2);
}
