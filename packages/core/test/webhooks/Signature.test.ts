/**
 * The signatures of a delivery, checked independently of the project's own code: the Standard
 * Webhooks headers with the `standardwebhooks` npm package, `X-Service-Signature` with plain
 * `node:crypto`; and `verifyWebhookSignature`, the receivers' check.
 */
import { assert, describe, it } from "@effect/vitest"
import { Signature } from "@sendline/core"
import { createHmac } from "node:crypto"
import { Webhook } from "standardwebhooks"

const secret = "whsec-test-secret-0123456789"
const body = JSON.stringify({
  id: "evt_01",
  type: "message.delivered",
  created_at: "2026-11-22T07:00:00.000+00:00",
  data: { to: "+61412345678", body: "Hé ✓" }
})

/** The `standardwebhooks` verifier for `key`, used as Standard Webhooks documents (raw key bytes: the secret's UTF-8). */
const receiverOf = (key: string) => new Webhook(new TextEncoder().encode(key), { format: "raw" })

describe("webhook signatures", () => {
  it("X-Service-Signature is the lowercase hex HMAC-SHA256 of the exact body with the secret (node:crypto)", () => {
    const headers = Signature.headers({ secret }, {
      eventId: "evt_01",
      eventType: "message.delivered",
      attempt: 0,
      body,
      at: Date.now()
    })
    assert.strictEqual(headers["x-service-signature"], createHmac("sha256", secret).update(body).digest("hex"))
    assert.match(headers["x-service-signature"]!, /^[0-9a-f]{64}$/)
    assert.deepStrictEqual(
      [
        headers["x-service-event-id"],
        headers["x-service-event-type"],
        headers["x-service-delivery-attempt"],
        headers["content-type"]
      ],
      ["evt_01", "message.delivered", "0", "application/json"]
    )
  })

  it("the Standard Webhooks headers verify with the standardwebhooks package, and a changed body does not", () => {
    const at = Date.now()
    const headers = Signature.headers({ secret }, {
      eventId: "evt_02",
      eventType: "sid.registered",
      attempt: 3,
      body,
      at
    })
    assert.strictEqual(headers["webhook-id"], "evt_02")
    assert.strictEqual(headers["webhook-timestamp"], String(Math.floor(at / 1000)))
    assert.deepStrictEqual(receiverOf(secret).verify(body, headers), JSON.parse(body))
    assert.throws(() => receiverOf(secret).verify(body.replace("✓", "x"), headers))
    assert.throws(() => receiverOf("another-secret-0123456789").verify(body, headers))
  })

  it("for 24 hours after a secret change, webhook-signature carries both secrets' signatures; X-Service-Signature the new one at once", () => {
    const replacedAt = Date.now()
    const secrets = { secret: "the-new-secret-0123456789", previous: { secret, replacedAt } }
    const within = Signature.headers(secrets, {
      eventId: "evt_03",
      eventType: "message.sent",
      attempt: 0,
      body,
      at: replacedAt + Signature.rotationOverlapMillis - 1
    })
    assert.strictEqual(within["webhook-signature"]!.split(" ").length, 2)
    assert.isTrue(Signature.verifyWebhookSignature(body, within["x-service-signature"]!, "the-new-secret-0123456789"))
    assert.isFalse(Signature.verifyWebhookSignature(body, within["x-service-signature"]!, secret))
    const after = Signature.headers(secrets, {
      eventId: "evt_03",
      eventType: "message.sent",
      attempt: 0,
      body,
      at: replacedAt + Signature.rotationOverlapMillis
    })
    assert.strictEqual(after["webhook-signature"]!.split(" ").length, 1)
    // a receiver still on the old secret verifies now (the timestamp must be current for the package)
    const now = Signature.headers(secrets, {
      eventId: "evt_04",
      eventType: "message.sent",
      attempt: 0,
      body,
      at: replacedAt
    })
    assert.deepStrictEqual(receiverOf(secret).verify(body, now), JSON.parse(body))
    assert.deepStrictEqual(receiverOf("the-new-secret-0123456789").verify(body, now), JSON.parse(body))
  })

  it("verifyWebhookSignature: true for the body's signature, as a string or as bytes; false for anything else", () => {
    const signature = createHmac("sha256", secret).update(body).digest("hex")
    assert.isTrue(Signature.verifyWebhookSignature(body, signature, secret))
    assert.isTrue(Signature.verifyWebhookSignature(Buffer.from(body, "utf8"), signature.toUpperCase(), secret))
    assert.isFalse(Signature.verifyWebhookSignature(body + " ", signature, secret))
    assert.isFalse(Signature.verifyWebhookSignature(body, signature.slice(0, 62), secret))
    assert.isFalse(Signature.verifyWebhookSignature(body, `sha256=${signature}`, secret))
    assert.isFalse(Signature.verifyWebhookSignature(body, "z".repeat(64), secret))
  })
})
