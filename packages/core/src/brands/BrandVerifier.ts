/**
 * The brand verifier of CONTRACT §5, a port: whether a new brand is the legal entity it claims to
 * be. The default (`layer`) decides at once on the checks `Brands.create` has already made (the
 * identifier's form and check digits, the contact); an asynchronous one (a registry lookup, a
 * person) answers `pending_verification` and decides later through `Brands.completeVerification`.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Brand } from "./Brand.js"

/** What a verifier answers for a new brand: its decision, or that it will decide later. @since 0.1.0 @category models */
export type Verdict = "verified" | "rejected" | "pending_verification"

/** Verifies new brands. @since 0.1.0 @category ports */
export class BrandVerifier extends Context.Tag("@sendline/core/BrandVerifier")<BrandVerifier, {
  /** The verdict on `brand`, which has passed Sendline's own checks; a verifier that cannot decide now answers `pending_verification`. */
  readonly verify: (brand: Brand) => Effect.Effect<Verdict>
}>() {}

/** Verifies every brand at once: the checks of `Brands.create` are the verification (CONTRACT §5's default). @since 0.1.0 @category layers */
export const layer: Layer.Layer<BrandVerifier> = Layer.succeed(BrandVerifier, {
  verify: () => Effect.succeed("verified")
})

/**
 * Leaves every brand `pending_verification`: the decision comes later, through
 * `Brands.completeVerification` (a worker of the embedder's, a registry's callback, a test).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDeferred: Layer.Layer<BrandVerifier> = Layer.succeed(BrandVerifier, {
  verify: () => Effect.succeed("pending_verification")
})
