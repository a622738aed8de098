/**
 * Which pagination form a request is in, decided by the query parameters present. Parameters of two
 * forms in one request are a 400 naming each of them, never a silent pick of one form.
 */
import { validationFailed, type Violation } from '../errors.ts';
import { DEFAULT_PAGE_SIZE } from './post-lists.service.ts';

type PostsRequest =
  | { form: 'standard'; cursor: string | null; limit: number }
  | { form: 'offset'; offset: number; limit: number }
  | { form: 'cursor'; after: string; limit: number }
  | { form: 'keyset'; createdBefore: string; idBefore: number | null; limit: number };

type FeedRequest = { limit: number; before?: string; after?: string };

interface PostsQuery {
  cursor?: string;
  offset?: number;
  limit?: number;
  after?: string;
  created_before?: string;
  id_before?: number;
}

/** `limit` belongs to every form; a request with none of these is the standard form's first page. */
const FORM_PARAMETERS = {
  standard: ['cursor'],
  offset: ['offset'],
  cursor: ['after'],
  keyset: ['created_before', 'id_before'],
} as const satisfies Record<string, readonly (keyof PostsQuery)[]>;

type Form = keyof typeof FORM_PARAMETERS;

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 timestamp as exact UTC text PostgreSQL accepts (microseconds kept, offset applied), or
 * null when it falls outside years 1..9999. Converting here keeps offsets PostgreSQL would refuse
 * (beyond ±15:59) and year 0 from reaching the database as a 500.
 */
function exactUtcTimestamp(text: string): string | null {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh = '0', om = '0'] = m;
  const base = new Date(0);
  base.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  base.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  const utc = new Date(base.getTime() - offsetMinutes * 60_000);
  const year = utc.getUTCFullYear();
  if (!Number.isFinite(utc.getTime()) || year < 1 || year > 9999) return null;
  return `${utc.toISOString().slice(0, 19)}.${fraction.padEnd(6, '0')}Z`;
}

function presentForms(query: PostsQuery): Form[] {
  return (Object.keys(FORM_PARAMETERS) as Form[]).filter((form) => FORM_PARAMETERS[form].some((p) => query[p] !== undefined));
}

export function postsRequestFrom(query: PostsQuery): PostsRequest {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const forms = presentForms(query);
  if (forms.length > 1) {
    const names = forms.flatMap((f) => FORM_PARAMETERS[f].filter((p) => query[p] !== undefined));
    const violations: Violation[] = names.map((name) => ({
      field: [name],
      source: 'parameter',
      message: `cannot be combined with ${names.filter((n) => n !== name).join(', ')}: they belong to different pagination forms`,
    }));
    throw validationFailed(
      violations,
      `Parameters of different pagination forms were mixed (${names.join(', ')}); use one form per request`,
    );
  }
  const form = forms[0];
  switch (form ?? 'standard') {
    case 'standard':
      return { form: 'standard', cursor: query.cursor ?? null, limit };
    case 'offset':
      return { form: 'offset', offset: query.offset!, limit };
    case 'cursor':
      return { form: 'cursor', after: query.after!, limit };
    case 'keyset': {
      if (query.created_before === undefined) {
        // The order is created_at then id: an id alone names no place in it.
        throw validationFailed([
          {
            field: ['id_before'],
            source: 'parameter',
            message: 'requires created_before (id_before is the tiebreaker within one created_at)',
          },
        ]);
      }
      const createdBefore = exactUtcTimestamp(query.created_before);
      if (createdBefore === null) {
        throw validationFailed([
          {
            field: ['created_before'],
            source: 'parameter',
            message: 'must be an RFC 3339 timestamp from year 1 to 9999 with at most 6 fraction digits',
          },
        ]);
      }
      return { form: 'keyset', createdBefore, idBefore: query.id_before ?? null, limit };
    }
  }
}

export function feedRequestFrom(query: { before?: string; after?: string; limit?: number }): FeedRequest {
  if (query.before !== undefined && query.after !== undefined) {
    throw validationFailed(
      [
        { field: ['before'], source: 'parameter', message: 'cannot be combined with after' },
        { field: ['after'], source: 'parameter', message: 'cannot be combined with before' },
      ],
      'Pass either before (older posts) or after (newer posts), not both',
    );
  }
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  if (query.before !== undefined) return { limit, before: query.before };
  if (query.after !== undefined) return { limit, after: query.after };
  return { limit };
}
