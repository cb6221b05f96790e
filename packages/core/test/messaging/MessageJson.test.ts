import { assert, describe, it } from "@effect/vitest"
import { type Message, MessageJson } from "@sendline/core"
import { makeMessage, T } from "../../src/testing/Fixtures.js"

/** A queued AU message "msg_01" created at `T` (2026-11-22T07:00:00.000Z), with `fields` over it. */
const message = (fields: Partial<Message.Message>) => makeMessage("acct_01", "msg_01", fields)

describe("MessageJson", () => {
  it("the list item is the full form without body, encoding, price and the other times", () => {
    const m = message({ status: "delivered", sentAt: T + 1000, deliveredAt: T + 2000, reference: "r-1" })
    const full = MessageJson.full(m)
    assert.deepStrictEqual(MessageJson.item(m), {
      id: full.id,
      status: full.status,
      to: full.to,
      sender_id: full.sender_id,
      segments: full.segments,
      market: full.market,
      reference: "r-1",
      created_at: "2026-11-22T07:00:00.000+00:00",
      delivered_at: "2026-11-22T07:00:02.000+00:00"
    })
    assert.notProperty(MessageJson.item(message({})), "delivered_at", "only a delivered message has one")
  })

  it("event data is cut from the full form, with what each status adds (CONTRACT §3)", () => {
    const common = {
      id: "msg_01",
      to: "+61412345678",
      sender_id: "Acme",
      market: "AU",
      segments: 1,
      reference: null,
      created_at: "2026-11-22T07:00:00.000+00:00"
    }
    const sent = message({ status: "sent", sentAt: T + 1000 })
    assert.deepStrictEqual(MessageJson.eventData(sent), {
      ...common,
      status: "sent",
      sent_at: "2026-11-22T07:00:01.000+00:00"
    })
    const delivered = message({ status: "delivered", sentAt: T + 1000, deliveredAt: T + 2000 })
    assert.deepStrictEqual(MessageJson.eventData(delivered), {
      ...common,
      status: "delivered",
      delivered_at: "2026-11-22T07:00:02.000+00:00",
      price: { amount: "0.0500", currency: "AUD" }
    })
    const failed = message({ status: "failed", error: { code: "rejected", message: "No." } })
    assert.deepStrictEqual(MessageJson.eventData(failed), {
      ...common,
      status: "failed",
      error: { code: "rejected", message: "No." }
    })
    assert.notProperty(MessageJson.eventData(message({})), "body", "a webhook never carries the body")
  })

  it("the error carries the carrier's own code; the carrier that took the message is never shown (CONTRACT §11)", () => {
    const error = { code: "unknown_subscriber", message: "Unknown subscriber.", carrier_code: "UNDELIV:001" }
    const m = message({ status: "undelivered", sentAt: T + 1000, carrierMessageId: "smsc-1", carrier: "backup", error })
    assert.deepStrictEqual(MessageJson.full(m).error, error)
    assert.deepStrictEqual(MessageJson.eventData(m).error, error)
    for (const json of [MessageJson.full(m), MessageJson.item(m), MessageJson.eventData(m)]) {
      assert.notInclude(JSON.stringify(json), "backup")
      assert.notInclude(JSON.stringify(json), "smsc-1")
    }
  })
})
