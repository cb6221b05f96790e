/**
 * The opt-outs group's answers as JSON: an opt-out, and what an import did. Their schemas are
 * `@sendline/api`'s `OptOutsJson`.
 *
 * @since 0.2.0
 */
import type { OptOutImport, OptOutJson } from "@sendline/api/optOuts/OptOutsJson"
import { type OptOut, type OptOuts, Timestamp } from "@sendline/core"

/** `o` as JSON. @since 0.2.0 @category encoding */
export const optOut = (o: OptOut.OptOut): OptOutJson => ({
  phone: o.phone,
  reason: o.reason,
  source: o.source,
  created_at: Timestamp.format(o.createdAt)
})

/** What an import did, as JSON. @since 0.2.0 @category encoding */
export const imported = (i: OptOuts.Imported): typeof OptOutImport.Encoded => ({
  imported: i.imported,
  already_listed: i.alreadyListed,
  invalid: i.invalid
})
