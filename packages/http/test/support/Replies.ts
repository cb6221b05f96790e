/**
 * What every `/v1` reply must be (CONTRACT §1, §8): its envelope's `meta` agreeing with its
 * `X-Request-Id`, its error envelope with the expected status and code, its data free of any field
 * the schema does not document.
 */
import { assert } from "@effect/vitest"
import { Envelope } from "@sendline/api"
import { Schema } from "effect"
import type { Reply } from "./Http.js"

/** `req_` + 26 lowercase Crockford base32 characters. */
export const requestIdPattern = /^req_[0-9a-hjkmnp-tv-z]{26}$/

/** RFC 3339, UTC as `+00:00`, with milliseconds. */
export const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/

/** Decodes `value` with a documented schema, refusing any field the schema does not document. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown): A =>
  Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(value)

/** Asserts the envelope's `meta` and the `X-Request-Id` header agree and are well formed. */
export const assertMeta = (reply: Reply): void => {
  const requestId = reply.headers.get("x-request-id")
  assert.match(requestId ?? "", requestIdPattern)
  assert.strictEqual(reply.json?.meta?.request_id, requestId)
  assert.match(reply.json.meta.timestamp, timestampPattern)
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/)
}

/** Asserts an error envelope with `status` and `code` (and `field` when given; `null`: no field). */
export const assertError = (reply: Reply, status: number, code: string, field?: string | null): void => {
  assert.strictEqual(reply.status, status, `expected ${status} ${code}, got ${reply.status}: ${reply.text}`)
  decode(Envelope.ErrorEnvelope, reply.json)
  assert.strictEqual(reply.json.ok, false)
  assert.strictEqual(reply.json.error.code, code, reply.text)
  if (field !== undefined) assert.strictEqual(reply.json.error.field, field ?? undefined, reply.text)
  assertMeta(reply)
}
