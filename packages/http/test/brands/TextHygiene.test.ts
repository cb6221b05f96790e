/**
 * Free text that a person reads elsewhere (an e-mail, an operator's screen) takes no control, bidi
 * or zero-width character (issue 29) on both stores: each class, in each field of a brand (create
 * and change) and of a Sender ID's registration, is 422 naming the field, `invalid_contact` for the
 * contact and the website, `invalid_characters` for the others; nothing is written.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "../support/Http.js"
import * as Replies from "../support/Replies.js"
import * as TestAccounts from "../support/TestAccounts.js"
import * as TestBrands from "../support/TestBrands.js"
import * as TestSenderIds from "../support/TestSenderIds.js"
import * as TestServer from "../support/TestServer.js"
import * as TestStores from "../support/TestStores.js"

/** One character of each class refused. */
const classes: Record<string, string> = {
  "a C0 control (BEL)": "\u0007",
  "CR and LF": "\r\n",
  "a C1 control (NEL)": "\u0085",
  "a bidi override (RLO)": "\u202e",
  "a bidi isolate (LRI)": "\u2066",
  "a bidi mark (RLM)": "\u200f",
  "a zero-width space": "\u200b",
  "a byte order mark": "\ufeff"
}

/** Each field of a brand, with the value that carries `c`, and the code and field of its refusal. */
const brandFields = (c: string) => {
  const body = TestBrands.brandBody(TestBrands.freshAcn())
  return [
    [{ ...body, name: `Acme${c} Pty Ltd` }, "invalid_characters", "name"],
    [{ ...body, contact: { ...body.contact, name: `Jo${c} Citizen` } }, "invalid_contact", "contact.name"],
    [{ ...body, contact: { ...body.contact, email: `jo${c}@acme.example` } }, "invalid_contact", "contact.email"],
    [{ ...body, contact: { ...body.contact, phone: `+614123${c}45678` } }, "invalid_contact", "contact.phone"],
    [{ ...body, website: `https://acme${c}.example` }, "invalid_contact", "website"]
  ] as const
}

for (const store of TestStores.all) {
  layer(TestServer.layer({ store: store.layer() }), { timeout: 60_000 })(`text hygiene on ${store.name}`, (it) => {
    for (const [kind, c] of Object.entries(classes)) {
      it.effect(`${kind} in each field of POST /v1/brands → 422 naming the field; nothing created`, () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          for (const [json, code, field] of brandFields(c)) {
            Replies.assertError(
              yield* Http.request("POST", "/v1/brands", { key: provider.key, json }),
              422,
              code,
              field
            )
          }
          assert.deepStrictEqual(
            (yield* Http.request("GET", "/v1/brand-relationships", { key: provider.key })).json.data,
            []
          )
        }))

      it.effect(`${kind} in PATCH /v1/brands/{id} and in a Sender ID's use_case and match_value → 422 naming the field; nothing changed`, () =>
        Effect.gen(function*() {
          const provider = yield* TestAccounts.newCaller()
          const { brandId } = yield* TestBrands.approvedBrand(provider)
          const before = (yield* Http.request("GET", `/v1/brands/${brandId}`, { key: provider.key })).json.data
          const patch = (json: unknown) => Http.request("PATCH", `/v1/brands/${brandId}`, { key: provider.key, json })
          Replies.assertError(yield* patch({ name: `Acme${c}` }), 422, "invalid_characters", "name")
          Replies.assertError(
            yield* patch({ contact: { ...before.contact, name: `Jo${c}` } }),
            422,
            "invalid_contact",
            "contact.name"
          )
          Replies.assertError(yield* patch({ website: `https://acme${c}.example` }), 422, "invalid_contact", "website")
          assert.deepStrictEqual(
            (yield* Http.request("GET", `/v1/brands/${brandId}`, { key: provider.key })).json.data,
            before
          )

          const register = (json: unknown) => Http.request("POST", "/v1/sids", { key: provider.key, json })
          Replies.assertError(
            yield* register({ ...TestSenderIds.sidBody(brandId), use_case: `Reminders${c}` }),
            422,
            "invalid_characters",
            "use_case"
          )
          Replies.assertError(
            yield* register({ ...TestSenderIds.sidBody(brandId), match_value: `Acme${c}` }),
            422,
            "invalid_characters",
            "match_value"
          )
          assert.deepStrictEqual((yield* Http.request("GET", "/v1/sids", { key: provider.key })).json.data, [])
        }))
    }

    it.effect("an e-mail needs a domain name: an IP literal, an IP address or a dotless host → 422 invalid_contact", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const body = TestBrands.brandBody(TestBrands.freshAcn())
        for (const email of ["a@[127.0.0.1]", "a@127.0.0.1", "a@localhost", "a@[IPv6:::1]"]) {
          const json = { ...body, contact: { ...body.contact, email } }
          Replies.assertError(
            yield* Http.request("POST", "/v1/brands", { key: provider.key, json }),
            422,
            "invalid_contact",
            "contact.email"
          )
        }
      }))

    it.effect("degenerate identifiers that pass their check digits → 422 invalid_identifier", () =>
      Effect.gen(function*() {
        const provider = yield* TestAccounts.newCaller()
        const cases = [["AU", "ABN", "10000000000"], ["AU", "ACN", "000000000"], ["NZ", "NZBN", "0000000000000"], [
          "SG",
          "UEN",
          "00000000X"
        ], ["GB", "CRN", "00000000"]] as const
        for (const [market, identifier_type, identifier_value] of cases) {
          const json = { ...TestBrands.brandBody(TestBrands.freshAcn()), market, identifier_type, identifier_value }
          Replies.assertError(
            yield* Http.request("POST", "/v1/brands", { key: provider.key, json }),
            422,
            "invalid_identifier",
            "identifier_value"
          )
        }
      }))
  })
}
