/**
 * CONTRACT §1's envelopes as the server sends them: the success bodies, serialised once (so that
 * idempotent replays are byte for byte), and their responses. The envelopes' schemas are
 * `@sendline/api`'s `Envelope`.
 *
 * @since 0.1.0
 */
import { HttpServerResponse } from "@effect/platform"
import type { Pagination as Paging } from "@sendline/core"
import { Effect } from "effect"
import * as RequestContext from "./RequestContext.js"

/** A serialised response body with its status. @since 0.1.0 @category models */
export interface Body {
  readonly status: number
  readonly body: string
}

/** The success envelope around `data`. @since 0.1.0 @category bodies */
export const success = (status: number, data: unknown): Effect.Effect<Body> =>
  Effect.map(RequestContext.meta, (meta) => ({ status, body: JSON.stringify({ ok: true, data, meta }) }))

/** The list envelope around a page, each item turned to JSON by `toJson`. @since 0.1.0 @category bodies */
export const page = <A>(page: Paging.Page<A>, toJson: (a: A) => unknown): Effect.Effect<Body> =>
  Effect.map(RequestContext.meta, (meta) => ({
    status: 200,
    body: JSON.stringify({
      ok: true,
      data: page.items.map(toJson),
      pagination: { has_more: page.hasMore, next_cursor: page.nextCursor, page_size: page.pageSize },
      meta
    })
  }))

/** A JSON response from a serialised body. @since 0.1.0 @category responses */
export const toResponse = (body: Body, headers?: Record<string, string>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body.body, {
    status: body.status,
    contentType: "application/json",
    ...(headers === undefined ? {} : { headers })
  })
