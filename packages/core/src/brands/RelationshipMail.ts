/**
 * The e-mail a pending relationship sends the brand's contact (CONTRACT §5: "pending relationships
 * are e-mailed to the brand contact"): who submitted the brand, or changed its name or website, what
 * approving allows, and how to approve or reject it. Built from the brand and the relationship
 * alone; `Brands.create` and `Brands.update` write it to the mail outbox in the brand's own write.
 *
 * Plain text only, never HTML: a name is shown as written and read as text, so `<a href=…>` in it
 * is no link. What others wrote (the provider's account name, the brand's name, its contact's
 * name, a website) is put on one line of ours (`oneLine`: line breaks and controls become spaces,
 * bidi and zero-width characters go), so it never adds a header field to the subject nor a line
 * to the body that reads as ours.
 *
 * @since 0.1.0
 */
import { oneLine } from "../internal/text.js"
import type { Draft } from "../mail/Mail.js"
import type { Brand, BrandRelationship } from "./Brand.js"

/** A field's value before and after a change (`undefined`: none). @since 0.1.0 @category models */
export interface Changed {
  readonly before: string | undefined
  readonly after: string | undefined
}

/**
 * A change of a brand that its Brand Owner must approve again (CONTRACT §5): its name, its website,
 * or both.
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  readonly name?: Changed | undefined
  readonly website?: Changed | undefined
}

/** `value` quoted on one line, or "none". */
const quoted = (value: string | undefined): string => value === undefined ? "none" : `"${oneLine(value)}"`

/**
 * The e-mail telling `brand`'s contact what to approve (`relationship`, pending) and how: the brand
 * as submitted, or, with `change`, what its provider changed since the Brand Owner approved it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (brand: Brand, relationship: BrandRelationship, change?: Change): Draft => {
  const provider = oneLine(relationship.provider.name)
  // the name the Brand Owner approved: a change's own name is shown as the change
  const name = oneLine(change?.name?.before ?? brand.name)
  const identifier = `${brand.identifierType} ${brand.identifierValue}`
  const who = `${provider} (${relationship.provider.type}, account ${relationship.provider.accountId})`
  const what = change === undefined
    ? [
      `${who} has submitted ${name}, ${identifier}, market ${brand.market}, as a brand it sends SMS for, and named you as ` +
      "its authorised representative.",
      "",
      `Until ${name}'s Brand Owner approves this, ${provider} can neither read nor change the brand, nor register Sender ` +
      "IDs under it."
    ]
    : [
      `${who} has changed ${name}, ${identifier}, market ${brand.market}, a brand it sends SMS for, since its Brand Owner ` +
      "approved it:",
      ...(["name", "website"] as const).flatMap((field) => {
        const changed = change[field]
        return changed === undefined ? [] : [`  ${field}: ${quoted(changed.before)} → ${quoted(changed.after)}`]
      }),
      "",
      `Until ${name}'s Brand Owner approves the change, ${provider} can neither read nor change the brand, nor register ` +
      "new Sender IDs under it. Sender IDs already registered under the brand keep sending."
    ]
  return {
    to: brand.contact.email,
    subject: change === undefined
      ? `Approve ${provider} to send SMS for ${name}?`
      : `Approve ${provider}'s change to ${name}?`,
    text: [
      `Dear ${oneLine(brand.contact.name)},`,
      "",
      ...what,
      "",
      `To approve it, with an API key of the Brand Owner account that holds ${identifier} (permission brands:write):`,
      `  POST /v1/brand-relationships/${relationship.id}/approve`,
      "To refuse it:",
      `  POST /v1/brand-relationships/${relationship.id}/reject`,
      "GET /v1/brand-relationships?status=pending lists every relationship waiting for you.",
      "",
      `If ${name} has no Brand Owner account yet, ask your Sendline operator for one holding ${identifier}. ` +
      `If you do not know ${provider}, reject it.`
    ].join("\n")
  }
}
