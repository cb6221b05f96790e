/**
 * How a webhook delivery is signed (CONTRACT §7, INTERFACE.md's Signature), and how a receiver
 * checks it. Two signatures travel with every attempt, both HMAC-SHA256 keyed with the secret's
 * UTF-8 bytes: `X-Service-Signature`, the lowercase hex digest of the exact bytes sent, with the
 * subscription's current secret; and the Standard Webhooks `webhook-signature`, `v1,<base64>` of
 * `"{id}.{timestamp}.{body}"`, once per secret still in use: for 24 hours after a change, the old
 * secret's beside the new one's, so receivers can roll their secret without missing a delivery.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** How long a replaced secret still signs `webhook-signature` beside the new one: 24 hours. @since 0.1.0 @category constants */
export const rotationOverlapMillis = 24 * 3_600_000

/** The secrets of a subscription as signing needs them: the current one, and the one it replaced, since when. @since 0.1.0 @category models */
export interface Secrets {
  readonly secret: string
  readonly previous?: { readonly secret: string; readonly replacedAt: number } | undefined
}

/** What one delivery attempt carries to be signed. @since 0.1.0 @category models */
export interface Attempt {
  readonly eventId: string
  readonly eventType: string
  /** 0 for the first delivery, then 1–6 for the retries. */
  readonly attempt: number
  /** The exact bytes sent. */
  readonly body: string
  /** When this attempt is made (epoch milliseconds); `webhook-timestamp` is its Unix seconds. */
  readonly at: number
}

const hmac = (secret: string, payload: string) =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(payload, "utf8")

/** The lowercase hex HMAC-SHA256 of `body` keyed with `secret`: `X-Service-Signature`. @since 0.1.0 @category signing */
export const sign = (secret: string, body: string): string => hmac(secret, body).digest("hex")

/** One Standard Webhooks signature, `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. @since 0.1.0 @category signing */
export const standardSignature = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  `v1,${hmac(secret, `${id}.${timestampSeconds}.${body}`).digest("base64")}`

/** The secrets that sign `webhook-signature` at `at`: the current one, and the replaced one within its 24 hours. @since 0.1.0 @category signing */
export const signingSecrets = ({ previous, secret }: Secrets, at: number): ReadonlyArray<string> =>
  previous !== undefined && at - previous.replacedAt < rotationOverlapMillis ? [secret, previous.secret] : [secret]

/**
 * Every signed header of one attempt: `X-Service-Signature` (current secret), `X-Service-Event-Id`,
 * `X-Service-Event-Type`, `X-Service-Delivery-Attempt`, and the Standard Webhooks `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (space-separated, one per signing secret).
 *
 * @since 0.1.0
 * @category signing
 */
export const headers = (secrets: Secrets, attempt: Attempt): Readonly<Record<string, string>> => {
  const timestamp = Math.floor(attempt.at / 1000)
  return {
    "content-type": "application/json",
    "x-service-signature": sign(secrets.secret, attempt.body),
    "x-service-event-id": attempt.eventId,
    "x-service-event-type": attempt.eventType,
    "x-service-delivery-attempt": String(attempt.attempt),
    "webhook-id": attempt.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signingSecrets(secrets, attempt.at)
      .map((secret) => standardSignature(secret, attempt.eventId, timestamp, attempt.body))
      .join(" ")
  }
}

/**
 * For receivers: whether `header` (an `X-Service-Signature`) is the HMAC-SHA256 of `rawBody`, the
 * bytes as received, keyed with `secret`, compared in constant time. Anything but 64 hex characters
 * is false.
 *
 * @since 0.1.0
 * @category verifying
 */
export const verifyWebhookSignature = (rawBody: string | Uint8Array, header: string, secret: string): boolean => {
  if (!/^[0-9a-fA-F]{64}$/.test(header)) return false
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(rawBody).digest()
  return timingSafeEqual(expected, Buffer.from(header, "hex"))
}
