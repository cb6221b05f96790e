/**
 * A preview as the messages group answers it, built without a schema pass; its schema, and the
 * group's request payloads and query, are `@sendline/api`'s `MessagesJson`, re-exported here.
 *
 * @since 0.1.0
 */
import type { PreviewResult } from "@sendline/api/messaging/MessagesJson"
import { type Messaging, Spending } from "@sendline/core"
import { Option } from "effect"

export * from "@sendline/api/messaging/MessagesJson"

/** A preview as JSON. @since 0.1.0 @category encoding */
export const preview = (p: Messaging.Preview): typeof PreviewResult.Encoded => ({
  encoding: p.encoding,
  segments: p.segments,
  characters: p.characters,
  units_per_segment: p.unitsPerSegment,
  ucs2_characters: p.ucs2Characters,
  ...(Option.isSome(p.price) ? { price: p.price.value } : {}),
  ...(Option.isSome(p.spend)
    ? {
      spend: {
        amount: Spending.fromUnits(p.spend.value.amount),
        limit: Option.match(p.spend.value.limit, { onNone: () => null, onSome: Spending.fromUnits }),
        remaining: Option.match(p.spend.value.remaining, { onNone: () => null, onSome: Spending.fromUnits })
      }
    }
    : {})
})
