/**
 * Handlers of the opt-outs group: the declared payload → core `OptOuts` → envelope, the add under
 * the request's `Idempotency-Key`; the import reads its CSV body as it streams
 * (`RequestBody.csvStream`), never whole.
 *
 * @since 0.2.0
 */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { OptOutsApi } from "@sendline/api/optOuts/OptOutsApi"
import { OptOuts } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"
import * as RequestBody from "../middleware/RequestBody.js"
import * as OptOutsJson from "./OptOutsJson.js"

/** The opt-outs group's handlers, over `OptOuts` and `Idempotency`. @since 0.2.0 @category layers */
export const layer = HttpApiBuilder.group(served(OptOutsApi), "optOuts", (handlers) =>
  Effect.gen(function*() {
    const optOuts = yield* OptOuts.OptOuts
    return handlers
      .handle("create", ({ payload: body }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            optOuts.add(principal, { phone: body.phone, reason: body.reason }).pipe(
              Effect.flatMap(({ created, optOut }) =>
                Envelope.success(created ? 201 : 200, OptOutsJson.optOut(optOut))
              )
            ))))
      .handle("import", () =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            optOuts.importCsv(principal, RequestBody.csvStream(request)).pipe(
              Effect.flatMap((done) =>
                Envelope.success(200, OptOutsJson.imported(done))
              ),
              Effect.map((body) =>
                Envelope.toResponse(body)
              )
            ))))
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          optOuts.list(principal, { phone: q.phone, source: q.source, from: q.from, to: q.to }, {
            cursor: q.cursor,
            pageSize: q.page_size
          }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, OptOutsJson.optOut)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          optOuts.get(principal, path.phone).pipe(
            Effect.flatMap((found) =>
              Envelope.success(200, OptOutsJson.optOut(found))
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("delete", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          optOuts.delete(principal, path.phone).pipe(
            Effect.flatMap((phone) =>
              Envelope.success(200, { phone, deleted: true })
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
  }))
