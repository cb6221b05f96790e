/** Sender IDs over HTTP: names that cannot collide, and a Sender ID registered under a brand of its own. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "./Http.js"
import type { Caller } from "./TestAccounts.js"
import * as TestBrands from "./TestBrands.js"

let senderIds = 0

/** A new Sender ID string, unique within this run (for registrations that must not collide). */
export const freshSenderId = (): string =>
  `Sid${String(Date.now() % 100_000).padStart(5, "0")}${String(++senderIds).padStart(3, "0")}`.slice(0, 11)

/** A valid `POST /v1/sids` body for `brandId` in AU; override fields as needed. */
export const sidBody = (brandId: string, senderId: string = freshSenderId()) => ({
  sender_id: senderId,
  brand_id: brandId,
  market: "AU",
  use_case: "Appointment reminders",
  match_type: "business_name",
  match_value: "Acme Pty Ltd"
})

/** A Sender ID `provider` registered for a new approved brand of its own (201 asserted): its JSON. */
export const registeredSid = (provider: Caller, senderId?: string) =>
  Effect.gen(function*() {
    const { brandId } = yield* TestBrands.approvedBrand(provider)
    const created = yield* Http.request("POST", "/v1/sids", { key: provider.key, json: sidBody(brandId, senderId) })
    assert.strictEqual(created.status, 201, created.text)
    return created.json.data as {
      readonly id: string
      readonly sender_id: string
      readonly status: string
      readonly registrations: ReadonlyArray<{ readonly id: string; readonly network: string; readonly status: string }>
    }
  })
