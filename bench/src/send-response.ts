/**
 * What both baseline servers of the send bench answer a send with: a body the size and shape of a
 * real `POST /v1/messaging/messages` response.
 */
export const SEND_RESPONSE = {
  ok: true,
  data: {
    id: "msg_01m81dha3yvp6vp193wnx9fsq8",
    status: "queued",
    to: "+61412345678",
    sender_id: "Sendline",
    body: "Bench message",
    segments: 1,
    encoding: "GSM-7",
    market: "AU",
    reference: null,
    price: { amount: "0.0500", currency: "AUD" },
    created_at: "2026-01-01T00:00:00.000+00:00"
  },
  meta: { request_id: "req_01m81dha33mmfvgxfrq09rmvrd", timestamp: "2026-01-01T00:00:00.000+00:00" }
}
