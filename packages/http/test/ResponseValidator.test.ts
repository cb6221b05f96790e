import { assert, describe, it } from "@effect/vitest"
import * as ResponseValidator from "./support/ResponseValidator.js"

const meta = { request_id: "req_01m810vyc01pfjhmv720etbcd0", timestamp: "2026-11-22T07:00:00.000+00:00" }
const health = (status: number, body: unknown) =>
  ResponseValidator.served().check("GET", "/health", { status, text: JSON.stringify(body) })

describe("ResponseValidator", () => {
  it("accepts a documented status whose body matches its schema", () => {
    assert.deepStrictEqual(health(200, { ok: true, data: { status: "ok" }, meta }), [])
  })

  it("refuses a status the operation does not document, naming the operation", () => {
    assert.match(health(418, {})!.join(), /^GET \/health 418: status not documented/)
  })

  it("refuses a body off the schema, naming operation, status and the error", () => {
    const problems = health(200, { ok: true, data: { status: "down" }, meta })!
    assert.isNotEmpty(problems)
    assert.match(problems[0]!, /^GET \/health 200: \/data\/status/)
  })

  it("matches path templates, the most literal first, and leaves undocumented paths unchecked", () => {
    const validator = ResponseValidator.served()
    assert.strictEqual(
      validator.operationOf("GET", "/v1/messaging/messages/msg_x?a=1")?.name,
      "GET /v1/messaging/messages/{id}"
    )
    assert.strictEqual(validator.operationOf("POST", "/v1/messaging/preview")?.name, "POST /v1/messaging/preview")
    assert.isUndefined(validator.check("GET", "/docs", { status: 200, text: "<html>" }))
  })
})
