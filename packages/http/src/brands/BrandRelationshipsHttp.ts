/**
 * Handlers of the brand relationships group: core `Brands` → envelope, under the request's
 * `Idempotency-Key` for the POSTs.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { BrandRelationshipsApi } from "@sendline/api/brands/BrandRelationshipsApi"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { BrandJson, Brands } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"

/** The brand relationships group's handlers, over `Brands` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(
  served(BrandRelationshipsApi),
  "brandRelationships",
  (handlers) =>
    Effect.gen(function*() {
      const brands = yield* Brands.Brands
      const decide = (decision: "approve" | "reject") => ({ path }: { readonly path: { readonly id: string } }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, () =>
            brands[decision](principal, path.id).pipe(
              Effect.flatMap((linked) =>
                Envelope.success(200, BrandJson.relationship(linked))
              )
            )))
      return handlers
        .handle("list", ({ urlParams: q }) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            brands.listRelationships(principal, { status: q.status, cursor: q.cursor, pageSize: q.page_size }).pipe(
              Effect.flatMap((page) =>
                Envelope.page(page, BrandJson.relationship)
              ),
              Effect.map((body) =>
                Envelope.toResponse(body)
              )
            )))
        .handle("get", ({ path }) =>
          Effect.flatMap(CurrentPrincipal, (principal) =>
            brands.getRelationship(principal, path.id).pipe(
              Effect.flatMap((linked) =>
                Envelope.success(200, BrandJson.relationship(linked))
              ),
              Effect.map((body) =>
                Envelope.toResponse(body)
              )
            )))
        .handle("approve", decide("approve"))
        .handle("reject", decide("reject"))
    })
)
