/**
 * The contact checks of CONTRACT §5: a brand's authorised representative (`contact`: `name`,
 * `email`, `phone`) and its `website`. Each answers the value as given, never rewritten, or why it
 * is refused: `invalid_contact`, naming the field at fault (`contact.email`, `contact.phone`,
 * `contact.name`, `website`).
 *
 * @since 0.1.0
 */
import { Either, Schema } from "effect"
import { rule, type RuleViolation } from "../Errors.js"
import * as Phone from "../messaging/Phone.js"

/** A brand's authorised representative. @since 0.1.0 @category models */
export const Contact = Schema.Struct({ name: Schema.String, email: Schema.String, phone: Schema.String })
/** A brand's authorised representative. @since 0.1.0 @category models */
export type Contact = typeof Contact.Type

const emailAddress = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * Whether `value` is an e-mail address: something, one `@`, a domain with a dot, no whitespace, at
 * most 254 characters (the longest a mail server takes). The same rule as an account's admin e-mail.
 *
 * @since 0.1.0
 * @category checks
 */
export const isEmail = (value: string): boolean => value.length <= 254 && emailAddress.test(value)

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
  isEmail(email)
    ? Either.right(email)
    : Either.left(rule("invalid_contact", "contact.email", "contact.email must be an e-mail address."))

/** `phone` when it is an E.164 number valid for its plan (`Phone.isE164`), else `invalid_contact` for `contact.phone`. @since 0.1.0 @category checks */
export const checkPhone = (phone: string): Either.Either<string, RuleViolation> =>
  Phone.isE164(phone)
    ? Either.right(phone)
    : Either.left(rule(
      "invalid_contact",
      "contact.phone",
      "contact.phone must be a phone number in E.164 form, e.g. +61412345678 (a plus, the country code, no spaces)."
    ))

/** `website` when it is an http(s) URL (`isWebsite`), else `invalid_contact` for `website`. @since 0.1.0 @category checks */
export const checkWebsite = (website: string): Either.Either<string, RuleViolation> =>
  isWebsite(website)
    ? Either.right(website)
    : Either.left(rule("invalid_contact", "website", "website must be an http or https URL, e.g. https://acme.example."))

/**
 * `contact` when its name is not blank, its e-mail an address and its phone E.164; else
 * `invalid_contact` for the first field at fault, in that order.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (contact: Contact): Either.Either<Contact, RuleViolation> =>
  contact.name.trim() === ""
    ? Either.left(rule("invalid_contact", "contact.name", "contact.name must not be blank."))
    : Either.flatMap(checkEmail(contact.email), () => Either.map(checkPhone(contact.phone), () => contact))
