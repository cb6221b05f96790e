/**
 * The batches use case (CONTRACT §13): many messages in one request, each filled from its
 * `variables` (`Template`) and checked as one send is (`SendChecks`, the same functions), in
 * request order; the valid ones written together with their events and the batch's record, in one
 * transaction; a batch read back with the count of its messages in each status.
 *
 * @since 0.3.0
 */
import {
  Conflict,
  InvalidRequest,
  NotFound,
  type PermissionDenied,
  RuleViolation,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import type { Principal } from "../accounts/Account.js"
import type { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import * as FindOrInsert from "../idempotency/FindOrInsert.js"
import type * as Idempotency from "../idempotency/Idempotency.js"
import { IdGenerator } from "../Ids.js"
import * as UseCase from "../internal/useCase.js"
import type { Markets } from "../Markets.js"
import type { OptOutStore } from "../optOuts/OptOutStore.js"
import type { SenderIdStore } from "../senderIds/SenderIdStore.js"
import type { Batch, BatchError, Invalid, StatusCounts, Valid } from "./Batch.js"
import type { Callbacks } from "./Callbacks.js"
import { MessageStore } from "./MessageStore.js"
import { fillBody } from "./Messaging.js"
import type { MessagingConfig } from "./MessagingConfig.js"
import * as SendChecks from "./SendChecks.js"
import type { SpendingStore } from "./SpendingStore.js"

/** The most messages one batch may hold. @since 0.3.0 @category constants */
export const maxMessages = 1000

/**
 * The most bytes a batch's answer takes, which its idempotency key keeps whole
 * (`Idempotency.Answer.maxKeptBytes`): each of 1,000 results (an id and status, or a code, a
 * sentence quoting at most 64 characters of the request, and a field) takes well under 1 KiB.
 *
 * @since 0.3.0
 * @category constants
 */
export const maxAnswerBytes = 1024 * 1024

/** The fields a batch's `defaults` may give its messages; `scheduledAt` in epoch milliseconds. @since 0.3.0 @category models */
export interface Defaults {
  readonly senderId?: string | undefined
  readonly market?: string | undefined
  readonly body?: string | undefined
  readonly reference?: string | undefined
  readonly callbackUrl?: string | undefined
  readonly scheduledAt?: number | undefined
}

/** One message of a batch: its own fields over the defaults, and the variables of its placeholders. @since 0.3.0 @category models */
export interface MessageInput extends Defaults {
  readonly to?: string | undefined
  readonly variables?: Readonly<Record<string, string>> | undefined
}

/** A batch request after shape checks. @since 0.3.0 @category models */
export interface BatchInput {
  readonly defaults?: Defaults | undefined
  readonly messages: ReadonlyArray<MessageInput>
  /**
   * The caller's idempotency key: when the account sent a batch with it within the key's 24 hours,
   * that batch is the answer and nothing is sent (a retry after a crash that lost the first
   * answer); a retry that asks for another batch fails `idempotency_conflict`.
   */
  readonly idempotencyKey?: Idempotency.Key | undefined
}

/** A batch as read back: its record and the count of its messages in each status now. @since 0.3.0 @category models */
export interface BatchStatus {
  readonly batch: Batch
  readonly statuses: StatusCounts
}

/** The batches use case. @since 0.3.0 @category services */
export class Batches extends Context.Tag("@sendline/core/Batches")<Batches, {
  /**
   * Sends a batch: the record, with each message's id and status or its refusal in request order.
   * None valid fails `batch_rejected`, one detail per message (`messages[INDEX].FIELD`, its code).
   */
  readonly send: (
    principal: Principal,
    input: BatchInput
  ) => Effect.Effect<Batch, RuleViolation | InvalidRequest | Conflict | PermissionDenied | StoreUnavailable>
  /** The account's batch `id`, with its messages counted by status. */
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<BatchStatus, NotFound | PermissionDenied | StoreUnavailable>
}>() {}

const required = ["to", "senderId", "market", "body"] as const
const wire: Record<string, string> = {
  to: "to",
  senderId: "sender_id",
  market: "market",
  body: "body",
  reference: "reference",
  callbackUrl: "callback_url",
  scheduledAt: "scheduled_at"
}

/** A message's fields over the batch's defaults (a field a message leaves out, or null, is the default's). */
const merged = (defaults: Defaults, message: MessageInput) => ({
  to: message.to,
  senderId: message.senderId ?? defaults.senderId,
  market: message.market ?? defaults.market,
  body: message.body ?? defaults.body,
  reference: message.reference ?? defaults.reference,
  callbackUrl: message.callbackUrl ?? defaults.callbackUrl,
  scheduledAt: message.scheduledAt ?? defaults.scheduledAt,
  variables: message.variables
})

/** The digest of what a batch request asks for: a retry with its key must ask the same. */
const digestOf = (input: BatchInput): string =>
  createHash("sha256").update(JSON.stringify([input.defaults ?? {}, input.messages])).digest("hex")

/** A message's rule as a batch answers it. */
const errorOf = (violation: RuleViolation): BatchError => ({
  code: violation.code,
  message: violation.message,
  ...(violation.field === undefined ? {} : { field: violation.field })
})

/** The refusal of a batch none of whose messages is valid, naming each message's field and code. */
const rejected = (batch: Batch): RuleViolation =>
  new RuleViolation({
    code: "batch_rejected",
    message: `None of the batch's ${batch.results.length} messages is valid; details names each one's problem.`,
    details: batch.results.map((result) => {
      const error = "error" in result ? result.error : { code: "", field: undefined }
      const field = error.field === undefined
        ? `messages[${result.index}]`
        : `messages[${result.index}].${error.field}`
      return { field, issue: error.code }
    })
  })

/** Builds the batches use case on the stores, the markets and the messaging settings. @since 0.3.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const messages = yield* MessageStore
  const ids = yield* IdGenerator
  const checks = yield* SendChecks.make

  /** The batch's shape beyond its schema: 1–1,000 messages, each with what a send requires once the defaults apply. */
  const checkShape = (input: BatchInput): Effect.Effect<void, InvalidRequest> => {
    const count = input.messages.length
    if (count < 1 || count > maxMessages) {
      return Effect.fail(
        new InvalidRequest({
          code: "invalid_request",
          field: "messages",
          message: `messages must hold 1 to ${maxMessages} messages, not ${count}.`
        })
      )
    }
    const defaults = input.defaults ?? {}
    const details = input.messages.flatMap((message, index) => {
      const fields = merged(defaults, message)
      return required.filter((name) => fields[name] === undefined).map((name) => ({
        field: `messages[${index}].${wire[name]}`,
        issue: name === "to" ? "is missing" : "is missing, in the message and in defaults"
      }))
    })
    if (details.length === 0) return Effect.void
    const [first] = details
    return Effect.fail(
      new InvalidRequest({
        code: "invalid_request",
        message: details.length === 1
          ? `${first!.field} ${first!.issue}.`
          : `The request body has ${details.length} problems; see details.`,
        ...(details.length === 1 ? { field: first!.field } : {}),
        details
      })
    )
  }

  /** Each message filled and checked at `now`, in request order: valid with its message, or invalid with its rule. */
  const entriesOf = (principal: Principal, input: BatchInput, batchId: string, now: number) =>
    Effect.flatMap(
      checks.forBatch(principal, input.messages.map((message) => merged(input.defaults ?? {}, message).to!)),
      (check) =>
        Effect.forEach(
          input.messages,
          (message, index) => entryOf(check, principal, input, message, index, batchId, now)
        )
    )

  /** One message filled and checked: valid with its message, or invalid with its rule. */
  const entryOf = (
    check: SendChecks.Check,
    principal: Principal,
    input: BatchInput,
    message: BatchInput["messages"][number],
    index: number,
    batchId: string,
    now: number
  ) => {
    const fields = merged(input.defaults ?? {}, message)
    // every placeholder needs its variable: a message without variables has none to fill it
    const checked = Effect.flatMap(
      fillBody(fields.body!, fields.variables ?? {}),
      (body) =>
        check(principal, {
          to: fields.to!,
          senderId: fields.senderId!,
          market: fields.market!,
          body,
          reference: fields.reference,
          callbackUrl: fields.callbackUrl,
          scheduledAt: fields.scheduledAt,
          batchId
        }, now)
    )
    return checked.pipe(
      Effect.map((valid): Valid | Invalid => ({ _tag: "Valid", index, ...valid })),
      Effect.catchTag(
        "RuleViolation",
        (violation) => Effect.succeed<Valid | Invalid>({ _tag: "Invalid", index, error: errorOf(violation) })
      )
    )
  }

  const create = (principal: Principal, input: BatchInput, now: number) =>
    Effect.gen(function*() {
      yield* checkShape(input)
      const id = yield* ids.make("bat")
      const entries = yield* entriesOf(principal, input, id, now)
      const insert = messages.insertBatch({
        id,
        accountId: principal.accountId,
        createdAt: now,
        ...(input.idempotencyKey === undefined ? {} : {
          idempotencyKey: input.idempotencyKey,
          requestDigest: digestOf(input)
        }),
        entries,
        refused: (refusal, message) => errorOf(SendChecks.limitReached(refusal, message.price))
      }).pipe(Effect.flatMap((batch) => batch.accepted === 0 ? Effect.fail(rejected(batch)) : Effect.succeed(batch)))
      return { insert }
    })

  const answerHeld = (held: Batch, input: BatchInput): Effect.Effect<Batch, Conflict> =>
    held.requestDigest === digestOf(input) ? Effect.succeed(held) : Effect.fail(
      new Conflict({
        code: "idempotency_conflict",
        message: `This idempotency key was already used to send another batch (${held.id}).`
      })
    )

  const findOrInsert = FindOrInsert.make<Batch, StoreUnavailable | RuleViolation>({
    find: messages.findBatchByIdempotencyKey,
    release: messages.releaseBatchIdempotencyKey
  })

  const send = fn("Batches.send")(function*(principal: Principal, input: BatchInput) {
    yield* requirePermission(principal, "messaging:send")
    return yield* findOrInsert(principal.accountId, input.idempotencyKey, {
      answerHeld: (held) => answerHeld(held, input),
      create: (now) => create(principal, input, now)
    })
  })

  const get = fn("Batches.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "messaging:read")
    const found = yield* messages.findBatch(principal.accountId, id)
    if (Option.isNone(found)) return yield* new NotFound({ message: `No batch ${id}.` })
    return { batch: found.value, statuses: yield* messages.countBatch(id) } satisfies BatchStatus
  })

  return Batches.of({ send, get })
})

/** `make` as a layer. @since 0.3.0 @category layers */
export const layer: Layer.Layer<
  Batches,
  never,
  | MessageStore
  | SenderIdStore
  | OptOutStore
  | Callbacks
  | Markets
  | IdGenerator
  | MessagingConfig
  | SpendingStore
  | AccountStore
> = Layer.effect(Batches, make)
