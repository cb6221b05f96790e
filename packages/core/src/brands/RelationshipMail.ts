/**
 * The e-mail a pending relationship sends the brand's contact (CONTRACT §5: "pending relationships
 * are e-mailed to the brand contact"): who submitted the brand, what approving it allows, and how
 * to approve or reject it. Plain text, built from the brand and the relationship alone; `Brands.create`
 * writes it to the mail outbox in the brand's own transaction.
 *
 * @since 0.1.0
 */
import type { Draft } from "../mail/Mail.js"
import type { Brand, BrandRelationship } from "./Brand.js"

/** The e-mail telling `brand`'s contact what to approve (`relationship`, pending) and how. @since 0.1.0 @category constructors */
export const make = (brand: Brand, relationship: BrandRelationship): Draft => {
  const { provider } = relationship
  const identifier = `${brand.identifierType} ${brand.identifierValue}`
  return {
    to: brand.contact.email,
    subject: `Approve ${provider.name} to send SMS for ${brand.name}?`,
    text: [
      `Dear ${brand.contact.name},`,
      "",
      `${provider.name} (${provider.type}, account ${provider.accountId}) has submitted ${brand.name}, ${identifier}, ` +
      `market ${brand.market}, as a brand it sends SMS for, and named you as its authorised representative.`,
      "",
      `Until ${brand.name}'s Brand Owner approves this, ${provider.name} can neither read nor change the brand, nor ` +
      "register Sender IDs under it.",
      "",
      `To approve it, with an API key of the Brand Owner account that holds ${identifier} (permission brands:write):`,
      `  POST /v1/brand-relationships/${relationship.id}/approve`,
      "To refuse it:",
      `  POST /v1/brand-relationships/${relationship.id}/reject`,
      "GET /v1/brand-relationships?status=pending lists every relationship waiting for you.",
      "",
      `If ${brand.name} has no Brand Owner account yet, ask your Sendline operator for one holding ${identifier}. ` +
      `If you do not know ${provider.name}, reject it.`
    ].join("\n")
  }
}
