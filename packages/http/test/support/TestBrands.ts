/**
 * Brands over HTTP: identifiers no one owns yet, Brand Owners, brands submitted and approved, and
 * the mail their relationships send.
 */
import { assert } from "@effect/vitest"
import { Admin, MailStore, Permission } from "@sendline/core"
import { Clock, Effect } from "effect"
import * as Http from "./Http.js"
import * as TestAccounts from "./TestAccounts.js"

let acns = 0
const acnBase = Math.floor(Math.random() * 90_000) * 1_000

/** A new valid ACN (9 digits, ASIC's check digit), unique within this run: an identifier no Brand Owner owns yet. */
export const freshAcn = (): string => {
  const digits = String(acnBase + ++acns).padStart(8, "0")
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * (8 - i), 0)
  return digits + String((10 - sum % 10) % 10)
}

/** A valid `POST /v1/brands` body for an AU brand of the ACN `acn`; override fields as needed. */
export const brandBody = (acn: string) => ({
  name: "Acme Pty Ltd",
  identifier_type: "ACN",
  identifier_value: acn,
  market: "AU",
  contact: { name: "Jo Citizen", email: "jo@acme.example", phone: "+61412345678" },
  website: "https://acme.example"
})

/** A new Brand Owner: a `brand` account owning the ACN `acn`, with a key holding every permission. */
export const newBrandOwner = (acn: string): Effect.Effect<TestAccounts.Caller, never, Admin.Admin> =>
  Effect.gen(function*() {
    const admin = yield* Admin.Admin
    const account = yield* admin.createAccount({
      name: "Acme Pty Ltd",
      type: "brand",
      adminEmail: "legal@acme.example",
      identifiers: [{ identifierType: "ACN", identifierValue: acn }]
    })
    return yield* TestAccounts.newKey(account.id, Permission.all)
  }).pipe(Effect.orDie)

/** A brand of the ACN `acn` submitted with `provider`'s key, and its relationship's id (201 asserted). */
export const submitBrand = (provider: TestAccounts.Caller, acn: string) =>
  Effect.gen(function*() {
    const created = yield* Http.request("POST", "/v1/brands", { key: provider.key, json: brandBody(acn) })
    assert.strictEqual(created.status, 201, created.text)
    const brandId = created.json.data.id as string
    const listed = yield* Http.request("GET", "/v1/brand-relationships?page_size=100", { key: provider.key })
    const relationship = (listed.json.data as Array<{ id: string; brand: { id: string } }>).find((r) =>
      r.brand.id === brandId
    )
    assert.isDefined(relationship, listed.text)
    return { brandId, relationshipId: relationship!.id }
  })

/** A brand `provider` submitted and a new Brand Owner approved: the provider reads and changes it. */
export const approvedBrand = (provider: TestAccounts.Caller) =>
  Effect.gen(function*() {
    const acn = freshAcn()
    const owner = yield* newBrandOwner(acn)
    const { brandId, relationshipId } = yield* submitBrand(provider, acn)
    const approved = yield* Http.request("POST", `/v1/brand-relationships/${relationshipId}/approve`, {
      key: owner.key
    })
    assert.strictEqual(approved.status, 200, approved.text)
    return { brandId, relationshipId, owner }
  })

/** The mails to `email` in the outbox, due within a day (left claimable: lease 0). */
export const mailsTo = (email: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return (yield* (yield* MailStore.MailStore).claim(now + 86_400_000, 10_000, 0)).filter((mail) => mail.to === email)
  })
