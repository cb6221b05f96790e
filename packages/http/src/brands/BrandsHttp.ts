/**
 * Handlers of the brands group: the declared payload (decoded by HttpApi from the checked body) →
 * core `Brands` → envelope, under the request's `Idempotency-Key` for the POST.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "@effect/platform"
import { BrandsApi } from "@sendline/api/brands/BrandsApi"
import { CurrentPrincipal, served } from "@sendline/api/middleware/Pipeline"
import { BrandJson, Brands } from "@sendline/core"
import { Effect } from "effect"
import * as Envelope from "../envelope/Envelope.js"
import * as Idempotent from "../middleware/Idempotent.js"

/** The brands group's handlers, over `Brands` and `Idempotency`. @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(served(BrandsApi), "brands", (handlers) =>
  Effect.gen(function*() {
    const brands = yield* Brands.Brands
    return handlers
      // A body that does not decode is refused before the idempotency key is taken: not kept.
      .handle("create", ({ payload: create }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Idempotent.run(principal, (idempotencyKey) =>
            brands.create(principal, {
              name: create.name,
              identifierType: create.identifier_type,
              identifierValue: create.identifier_value,
              market: create.market,
              contact: create.contact,
              website: create.website,
              idempotencyKey
            }).pipe(Effect.flatMap(({ brand }) =>
              Envelope.success(201, BrandJson.created(brand))
            )))))
      .handle("list", ({ urlParams: q }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          brands.list(principal, { cursor: q.cursor, pageSize: q.page_size }).pipe(
            Effect.flatMap((page) =>
              Envelope.page(page, BrandJson.full)
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          brands.get(principal, path.id).pipe(
            Effect.flatMap((brand) =>
              Envelope.success(200, BrandJson.full(brand))
            ),
            Effect.map((body) =>
              Envelope.toResponse(body)
            )
          )))
      .handle("update", ({ path, payload: patch }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          brands.update(principal, path.id, {
            name: patch.name,
            contact: patch.contact,
            website: patch.website,
            identifierType: patch.identifier_type,
            identifierValue: patch.identifier_value,
            market: patch.market
          }).pipe(
            Effect.flatMap((brand) =>
              Envelope.success(200, BrandJson.full(brand))
            ),
            Effect.map((body) => Envelope.toResponse(body))
          )))
  }))
