/**
 * Success responses in CONTRACT §1's envelope, serialised once (so that idempotent replays are
 * byte for byte).
 *
 * @since 0.1.0
 */
import { HttpServerResponse } from "@effect/platform"
import type { Messaging } from "@sendline/core"
import { Effect } from "effect"
import * as RequestContext from "./RequestContext.js"

/** A serialised response body with its status. @since 0.1.0 @category models */
export interface Body {
  readonly status: number
  readonly body: string
}

/** The success envelope around `data`. @since 0.1.0 @category envelopes */
export const envelope = (status: number, data: unknown): Effect.Effect<Body> =>
  Effect.map(RequestContext.meta, (meta) => ({ status, body: JSON.stringify({ ok: true, data, meta }) }))

/** The list envelope around a page, each item turned to JSON by `toJson`. @since 0.1.0 @category envelopes */
export const page = <A>(page: Messaging.Page<A>, toJson: (a: A) => unknown): Effect.Effect<Body> =>
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
