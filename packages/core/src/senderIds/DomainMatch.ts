/**
 * The `domain` match type of CONTRACT §6: a Sender ID matches a brand's website when, lowercased
 * without spaces, it appears in the label of the site's registrable domain: `www.acme.com.au` →
 * `acme`, `shop.acme.co.uk` → `acme`. The registrable domain comes from the Public Suffix List
 * (through `tldts`), never from a list of our own; its private section counts too, so that
 * `acme.github.io` is `acme`'s, as the List says such names are registered.
 *
 * @since 0.1.0
 */
import { Option } from "effect"
import { parse } from "tldts"

/** The label of `website`'s registrable domain, lowercased; none for an IP address or a name without one. @since 0.1.0 @category domains */
export const registrableLabel = (website: string): Option.Option<string> => {
  const parsed = parse(website, { allowPrivateDomains: true })
  if (parsed.isIp === true || parsed.domainWithoutSuffix === null || parsed.domainWithoutSuffix === "") {
    return Option.none()
  }
  return Option.some(parsed.domainWithoutSuffix.toLowerCase())
}

/** Whether `senderId`, lowercased without spaces, appears in the label of `website`'s registrable domain. @since 0.1.0 @category checks */
export const matches = (senderId: string, website: string): boolean => {
  const wanted = senderId.replace(/\s+/g, "").toLowerCase()
  return wanted !== "" && Option.exists(registrableLabel(website), (label) => label.includes(wanted))
}
