/**
 * The contact checks of CONTRACT §5: a brand's authorised representative (`contact`: `name`,
 * `email`, `phone`) and its `website`. Each answers the value as given, never rewritten, or why it
 * is refused: `invalid_contact`, naming the field at fault (`contact.email`, `contact.phone`,
 * `contact.name`, `website`), a control, bidi or zero-width character in any of them included.
 *
 * @since 0.1.0
 */
import type { Contact } from "@sendline/api/brands/BrandJson"
import { rule, type RuleViolation } from "@sendline/api/Errors"
import { Either } from "effect"
import { checkCharacters } from "../internal/text.js"
import * as Phone from "../Phone.js"

export {
  /** A brand's authorised representative, as the API shows it. @since 0.1.0 @category models */
  Contact
} from "@sendline/api/brands/BrandJson"

/** A local part: the characters of an unquoted one (RFC 5322's atext and dots), letters of any script too. */
const localPart = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~.-]+$/u
/** A domain label: letters (any script) and digits, hyphens inside, at most 63 characters. */
const label = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u

/** Whether `domain` is a domain name: two labels or more, the last with a letter (so no IP address, no IP literal). */
const isDomainName = (domain: string): boolean => {
  const labels = domain.split(".")
  return labels.length >= 2 && labels.every((l) => label.test(l)) && /\p{L}/u.test(labels[labels.length - 1]!)
}

/**
 * Whether `value` is an e-mail address: an unquoted local part (no quotes, spaces, angle brackets,
 * commas), one `@`, and a domain name (two labels or more, the last not all digits: no IP literal
 * such as `[127.0.0.1]`, no IP address, no dotless host), at most 254 characters (the longest a mail
 * server takes). The same rule as an account's admin e-mail.
 *
 * @since 0.1.0
 * @category checks
 */
export const isEmail = (value: string): boolean => {
  const at = value.lastIndexOf("@")
  return value.length <= 254 && at > 0 && localPart.test(value.slice(0, at)) && isDomainName(value.slice(at + 1))
}

/**
 * Whether `value` is a website: an absolute `http` or `https` URL with a host, without credentials
 * or whitespace, at most 2,048 characters.
 *
 * @since 0.1.0
 * @category checks
 */
export const isWebsite = (value: string): boolean => {
  // URL trims surrounding whitespace and drops tabs and newlines inside: refused here instead.
  if (value.length > 2048 || /\s/.test(value) || !URL.canParse(value)) return false
  const url = new URL(value)
  return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" && url.username === "" &&
    url.password === ""
}

/** `email` when it is an e-mail address (`isEmail`), else `invalid_contact` for `contact.email`. @since 0.1.0 @category checks */
export const checkEmail = (email: string): Either.Either<string, RuleViolation> =>
  Either.flatMap(checkCharacters("contact.email", email, "invalid_contact"), () =>
    isEmail(email)
      ? Either.right(email)
      : Either.left(
        rule(
          "invalid_contact",
          "contact.email",
          "contact.email must be an e-mail address at a domain name, e.g. jo@acme.example."
        )
      ))

/** `phone` when it is an E.164 number valid for its plan (`Phone.isE164`), else `invalid_contact` for `contact.phone`. @since 0.1.0 @category checks */
export const checkPhone = (phone: string): Either.Either<string, RuleViolation> =>
  Either.flatMap(checkCharacters("contact.phone", phone, "invalid_contact"), () =>
    Phone.isE164(phone)
      ? Either.right(phone)
      : Either.left(rule(
        "invalid_contact",
        "contact.phone",
        "contact.phone must be a phone number in E.164 form, e.g. +61412345678 (a plus, the country code, no spaces)."
      )))

/** `website` when it is an http(s) URL (`isWebsite`), else `invalid_contact` for `website`. @since 0.1.0 @category checks */
export const checkWebsite = (website: string): Either.Either<string, RuleViolation> =>
  Either.flatMap(checkCharacters("website", website, "invalid_contact"), () =>
    isWebsite(website)
      ? Either.right(website)
      : Either.left(
        rule("invalid_contact", "website", "website must be an http or https URL, e.g. https://acme.example.")
      ))

/**
 * `contact` when its name is not blank, none of its fields holds a control, bidi or zero-width
 * character, its e-mail is an address and its phone E.164; else `invalid_contact` for the first
 * field at fault, in that order.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (contact: Contact): Either.Either<Contact, RuleViolation> =>
  contact.name.trim() === ""
    ? Either.left(rule("invalid_contact", "contact.name", "contact.name must not be blank."))
    : Either.all([
      checkCharacters("contact.name", contact.name, "invalid_contact"),
      checkEmail(contact.email),
      checkPhone(contact.phone)
    ]).pipe(Either.map(() => contact))
