/** Page-number paging shared by the GraphQL connections and the REST paged envelope. */
export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  hasNext: boolean;
}

export function pageOf<T>(items: T[], page: number, size: number, totalElements: number): Page<T> {
  const totalPages = size > 0 ? Math.ceil(totalElements / size) : 0;
  return { items, page, size, totalElements, totalPages, hasNext: page + 1 < totalPages };
}
