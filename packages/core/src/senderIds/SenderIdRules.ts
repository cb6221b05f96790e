/**
 * The Sender ID rules of a market (`Markets.SenderIdRules`): CONTRACT §3's format everywhere, and
 * over it what the market's regulator adds (AU: ACMA's SMS Sender ID Register). One check for every
 * place a Sender ID is taken: sending, importing, registering.
 *
 * @since 0.1.0
 */
import { rule, type RuleViolation } from "@sendline/api/Errors"
import { Either } from "effect"
import type { Market, SenderIdRules } from "../Markets.js"
import { invalidFormatMessage, isValidFormat } from "./SenderId.js"

/** Letters and digits only, lower case: how words are compared (`Anti-Fraud` is `antifraud`). */
const comparable = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, "")

/** Whether `text` is made of `words` alone, one or several, end to end. */
const consistsOf = (text: string, words: ReadonlySet<string>): boolean => {
  if (text === "") return false
  // reachable[i]: text's first i characters are words end to end
  const reachable = [true, ...Array.from({ length: text.length }, () => false)]
  for (let end = 1; end <= text.length; end++) {
    for (let start = 0; start < end && !reachable[end]; start++) {
      reachable[end] = reachable[start]! && words.has(text.slice(start, end))
    }
  }
  return reachable[text.length]!
}

/** A market's words as they are compared, worked out once per rules (a check runs for every message sent). */
const comparedWords = (() => {
  const known = new WeakMap<
    SenderIdRules,
    { forbidden: ReadonlyArray<readonly [string, string]>; restricted: ReadonlySet<string> }
  >()
  return (rules: SenderIdRules) => {
    const found = known.get(rules)
    if (found !== undefined) return found
    const words = {
      forbidden: rules.forbiddenWords.map((word) => [word, comparable(word)] as const),
      restricted: new Set(rules.restrictedWords.map(comparable))
    }
    known.set(rules, words)
    return words
  }
})()

/**
 * `senderId` when it keeps CONTRACT §3's format and `market`'s Sender ID rules, compared
 * case-insensitively; else `invalid_sender_id` on `sender_id`, its message naming the rule broken.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (market: Market, senderId: string): Either.Either<string, RuleViolation> => {
  const refuse = (message: string) => Either.left(rule("invalid_sender_id", "sender_id", message))
  if (!isValidFormat(senderId)) return refuse(invalidFormatMessage)
  const rules = market.senderIdRules
  if (rules === undefined) return Either.right(senderId)
  if (senderId.length < rules.minLength) {
    return refuse(`sender_id must be at least ${rules.minLength} characters in ${market.code}.`)
  }
  const text = comparable(senderId)
  const words = comparedWords(rules)
  const forbidden = words.forbidden.find(([, word]) => text.includes(word))
  if (forbidden !== undefined) {
    return refuse(`sender_id must not contain the word ${forbidden[0]} in ${market.code}.`)
  }
  if (consistsOf(text, words.restricted)) {
    return refuse(`sender_id must not consist only of restricted generic words in ${market.code} (${senderId} does).`)
  }
  return Either.right(senderId)
}
