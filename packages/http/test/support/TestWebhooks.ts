/** Webhooks over HTTP: a valid subscription, and the WebhookDeliverer run one pass at a time. */
import { assert } from "@effect/vitest"
import { WebhookDeliverer } from "@sendline/core"
import { Effect } from "effect"
import * as Http from "./Http.js"
import type { Caller } from "./TestAccounts.js"

/** A valid `POST /v1/webhooks` body (https, a public host): the main caller's, unless overridden. */
export const webhookBody = {
  url: "https://hooks.acme.example/sendline",
  events: ["message.queued"] as ReadonlyArray<string>,
  secret: "whsec-0123456789abcdef"
}

/** A new subscription of `caller` to `webhookBody` with `overrides` (201 asserted): its id. */
export const subscribe = (caller: Caller, overrides: Partial<typeof webhookBody> = {}) =>
  Effect.map(
    Http.request("POST", "/v1/webhooks", { key: caller.key, json: { ...webhookBody, ...overrides } }),
    (reply) => {
      assert.strictEqual(reply.status, 201, reply.text)
      return reply.json.data.id as string
    }
  )

/** The fields of a delivery's JSON while it is pending, not attempted: all but its times are unknown. */
export const unattempted = {
  state: "pending",
  url: null,
  status_code: null,
  error: null,
  duration_ms: null,
  response_body: null,
  attempted_at: null,
  next_attempt_at: null
} as const

/** One pass of the WebhookDeliverer, its attempts awaited: how many it made. */
export const deliver = Effect.flatMap(WebhookDeliverer.WebhookDeliverer, (deliverer) => Effect.orDie(deliverer.runOnce))
