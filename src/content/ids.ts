/** Post and comment ids are positive int4 values exposed as ID strings; anything else names no row. */
export function parseIntegerId(id: string): number | null {
  if (!/^\d{1,10}$/.test(id)) return null;
  const n = Number(id);
  return n >= 1 && n <= 2_147_483_647 ? n : null;
}
