/**
 * The one error table against CONTRACT §8, and what derives from it: the OpenAPI document's
 * descriptions and the client's error schemas.
 */
import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Api } from "../../src/Api.js"
import * as ErrorCodes from "../../src/envelope/ErrorCodes.js"
import * as Errors from "../../src/Errors.js"

// CONTRACT §8, as written there (422: the rule codes of §3 and later sections).
const contract: Record<number, ReadonlyArray<string>> = {
  400: ["invalid_request", "invalid_parameter", "invalid_cursor"],
  401: ["unauthenticated"],
  403: ["permission_denied", "brand_relationship_pending"],
  404: ["not_found"],
  405: ["method_not_allowed"],
  409: ["idempotency_conflict", "idempotency_in_progress", "invalid_state_transition", "sender_id_taken"],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  422: Errors.RuleCode.literals,
  429: ["rate_limited"],
  500: ["internal_error"],
  503: ["unavailable"]
}

describe("ErrorCodes", () => {
  it("gives every code of CONTRACT §8 its status, and no other code", () => {
    assert.deepStrictEqual(ErrorCodes.statuses, Object.keys(contract).map(Number))
    for (const [status, codes] of Object.entries(contract)) {
      assert.sameMembers([...ErrorCodes.codesOf(Number(status))], [...codes], `status ${status}`)
    }
  })

  it("every core error's code has a row: a new error can't be answered with a status nobody chose", () => {
    const errors: ReadonlyArray<Errors.SendlineError> = [
      new Errors.NotFound({ message: "" }),
      new Errors.Unauthenticated({ message: "" }),
      new Errors.RateLimited({ message: "", retryAfterSeconds: 1 }),
      new Errors.StoreUnavailable({ message: "" })
    ]
    assert.deepStrictEqual(errors.map((e) => ErrorCodes.status(e.code)), [404, 401, 429, 503])
  })

  it("the OpenAPI document describes each error status by its codes", () => {
    const doc = OpenApi.fromApi(Api) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>
    }
    const send = doc.paths["/v1/messaging/messages"]!["post"]!.responses
    for (const status of ["400", "409", "422", "413"]) {
      for (const code of ErrorCodes.codesOf(Number(status))) {
        assert.include(send[status]!.description, `${code}: `, status)
      }
    }
  })
})
