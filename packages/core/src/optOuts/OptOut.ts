/**
 * Opt-outs (CONTRACT §12): the numbers an account's messages must not reach, each in E.164 once
 * (`Phone.normalise`), with why (`reason`, as the account recorded it) and where it came from.
 *
 * @since 0.2.0
 */
import { OptOutSource } from "@sendline/api/optOuts/OptOutsJson"
import { Schema } from "effect"

export {
  /** Where an opt-out came from: `api` or `import`. @since 0.2.0 @category models */
  OptOutSource
} from "@sendline/api/optOuts/OptOutsJson"

/**
 * The number `phone` (E.164) listed by `accountId` at `createdAt`: the account's messages to it are
 * refused, and those queued to it fail before dispatch. One entry per account and number.
 *
 * @since 0.2.0
 * @category models
 */
export const OptOut = Schema.Struct({
  accountId: Schema.String,
  phone: Schema.String,
  reason: Schema.NullOr(Schema.String),
  source: OptOutSource,
  createdAt: Schema.Number
})
/** An opt-out. @since 0.2.0 @category models */
export type OptOut = typeof OptOut.Type

/** What a list of opt-outs keeps: each field given narrows it. @since 0.2.0 @category models */
export interface OptOutFilter {
  /** Only this number (E.164). */
  readonly phone?: string | undefined
  readonly source?: OptOutSource | undefined
  /** The first `createdAt` listed. */
  readonly from?: number | undefined
  /** The last `createdAt` listed. */
  readonly to?: number | undefined
}
