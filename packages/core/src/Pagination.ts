/**
 * Keyset pagination of CONTRACT §1, for every list: the page size applied (default 50, at most
 * 100, clamped), where a cursor resumes (`Cursor`, bound to the list's filters), and the page made
 * of one row more than it shows, so that `hasMore` never needs a count.
 *
 * @since 0.1.0
 */
import { pageSizes } from "@sendline/api/envelope/Envelope"
import { invalidParameter, InvalidRequest } from "@sendline/api/Errors"
import { Effect, Option } from "effect"
import * as Cursor from "./Cursor.js"

/** One page of a keyset-paginated list. @since 0.1.0 @category models */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly hasMore: boolean
  /** Null exactly when `hasMore` is false. */
  readonly nextCursor: string | null
  readonly pageSize: number
}

/** Where a page ends: its last row's `createdAt` and id (rows are newest first, then id descending). @since 0.1.0 @category models */
export interface Keyset {
  readonly createdAt: number
  readonly id: string
}

export {
  /** Default and largest page sizes (CONTRACT §1). @since 0.1.0 @category constants */
  pageSizes
} from "@sendline/api/envelope/Envelope"

/** A list request's paging: the cursor of a previous page, and the requested size (an integer ≥ 1). @since 0.1.0 @category models */
export interface Paging {
  readonly cursor?: string | undefined
  readonly pageSize?: number | undefined
}

/**
 * The page size applied to `requested` (the default when absent; any size above the largest is
 * clamped, however large, `Infinity` too), or `invalid_parameter` for one below 1 or not an integer.
 *
 * @since 0.1.0
 * @category paging
 */
export const pageSizeOf = (requested: number | undefined): Effect.Effect<number, InvalidRequest> => {
  const size = requested ?? pageSizes.default
  return !(size >= 1) || (Number.isFinite(size) && !Number.isInteger(size))
    ? Effect.fail(invalidParameter("page_size", "page_size must be an integer of at least 1."))
    : Effect.succeed(Math.min(size, pageSizes.max))
}

/**
 * Where the list resumes: after the cursor's row when one is given, which must have been made for
 * these `filters` (else `invalid_cursor`); from the start otherwise.
 *
 * @since 0.1.0
 * @category paging
 */
export const after = (
  cursor: string | undefined,
  filters: Readonly<Record<string, unknown>>
): Effect.Effect<Option.Option<Keyset>, InvalidRequest> => {
  if (cursor === undefined) return Effect.succeed(Option.none())
  return Option.match(Cursor.decode(cursor, filters), {
    onNone: () =>
      Effect.fail(
        new InvalidRequest({
          code: "invalid_cursor",
          field: "cursor",
          message: "cursor is not valid for this list and these filters."
        })
      ),
    onSome: (position) => Effect.succeed(Option.some({ createdAt: position.sortKey, id: position.id }))
  })
}

/**
 * The page of `rows` (read with a limit of `pageSize + 1`): at most `pageSize` of them, and a
 * cursor after the last one, for these `filters`, when there were more.
 *
 * @since 0.1.0
 * @category paging
 */
export const of = <A>(
  rows: ReadonlyArray<A>,
  pageSize: number,
  filters: Readonly<Record<string, unknown>>,
  keyset: (a: A) => Keyset
): Page<A> => {
  const hasMore = rows.length > pageSize
  const items = hasMore ? rows.slice(0, pageSize) : rows
  const last = items[items.length - 1]
  const position = last === undefined ? undefined : keyset(last)
  return {
    items,
    hasMore,
    nextCursor: hasMore && position !== undefined
      ? Cursor.encode({ sortKey: position.createdAt, id: position.id }, filters)
      : null,
    pageSize
  }
}
