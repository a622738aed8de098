/** The `page` object of the REST paged envelope (components/paging.yaml PageMetadata). */
export interface PageMetadata {
  number: number;
  size: number;
  totalElements: number;
  totalPages: number;
  first: boolean;
  last: boolean;
}

export function pageMetadata(number: number, size: number, totalElements: number): PageMetadata {
  const totalPages = Math.ceil(totalElements / size);
  return { number, size, totalElements, totalPages, first: number === 0, last: number >= totalPages - 1 };
}
