/**
 * Prices cross the JSON boundary as numbers but are stored and computed as exact decimals. A JSON number
 * with at most 12 significant digits round-trips through a double exactly at 2 decimals, so converting at
 * the edge with toFixed(2) / Number() never changes a price.
 */
export function priceToDecimal(price: number): string {
  return price.toFixed(2);
}

export function decimalToPrice(decimal: string): number {
  return Number(decimal);
}
