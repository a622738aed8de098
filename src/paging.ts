/**
 * Page-number paging: the one computation of page metadata, used by the GraphQL connections
 * (`Page`, via the services) and the REST paged envelope (`PageMetadata`, components/paging.yaml).
 */

/** The `page` object of the REST paged envelope. */
interface PageMetadata {
  number: number;
  size: number;
  totalElements: number;
  totalPages: number;
  first: boolean;
  last: boolean;
}

export function pageMetadata(number: number, size: number, totalElements: number): PageMetadata {
  const totalPages = size > 0 ? Math.ceil(totalElements / size) : 0;
  return { number, size, totalElements, totalPages, first: number === 0, last: number >= totalPages - 1 };
}

/** One page of a list as the services return it: the items and the same metadata. */
export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  hasNext: boolean;
}

export function pageOf<T>(items: T[], page: number, size: number, totalElements: number): Page<T> {
  const { totalPages, last } = pageMetadata(page, size, totalElements);
  return { items, page, size, totalElements, totalPages, hasNext: !last };
}
