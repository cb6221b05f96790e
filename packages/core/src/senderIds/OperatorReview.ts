/**
 * The operator's side of CONTRACT §6: an operator account lists and reads the registrations of its
 * own network (in its markets) and decides them: approve, reject with a reason, or ask for
 * information. A decision moves its registration out of `pending_operator_review` or `resubmitted`
 * only, and the Sender ID's status with it, with its `sid.*` events, in one write.
 *
 * @since 0.1.0
 */
import {
  Conflict,
  invalidParameter,
  type InvalidRequest,
  NotFound,
  PermissionDenied,
  type StoreUnavailable
} from "@sendline/api/Errors"
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Account, Principal } from "../accounts/Account.js"
import { AccountStore } from "../accounts/AccountStore.js"
import { requirePermission } from "../accounts/Auth.js"
import { IdGenerator } from "../Ids.js"
import * as UseCase from "../internal/useCase.js"
import * as Pagination from "../Pagination.js"
import * as Lifecycle from "./Lifecycle.js"
import { type Decision, isAwaitingOperator, type Registration } from "./Registration.js"
import { type RegistrationFilter, SenderIdStore } from "./SenderIdStore.js"

/**
 * An operator's list: the filters of `SenderIdStore.RegistrationFilter` but the network and
 * markets, which are the caller's own, and paging.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListRegistrations extends Omit<RegistrationFilter, "network" | "markets">, Pagination.Paging {}

/** The operator review use case. @since 0.1.0 @category services */
export class OperatorReview extends Context.Tag("@sendline/core/OperatorReview")<OperatorReview, {
  /** The registrations of the caller's network in its markets, newest submitted first; any other account → 403. */
  readonly list: (
    principal: Principal,
    input: ListRegistrations
  ) => Effect.Effect<Pagination.Page<Registration>, InvalidRequest | PermissionDenied | StoreUnavailable>
  /** The registration `id` when it is for the caller's network; else (another network, not an operator) not found. */
  readonly get: (
    principal: Principal,
    id: string
  ) => Effect.Effect<Registration, NotFound | PermissionDenied | StoreUnavailable>
  /**
   * The caller's decision on a registration of its network (`operator:write`): only from
   * `pending_operator_review` or `resubmitted` (else 409 `invalid_state_transition`); the Sender
   * ID's status follows in the same write.
   */
  readonly decide: (
    principal: Principal,
    id: string,
    decision: Decision
  ) => Effect.Effect<Registration, InvalidRequest | NotFound | PermissionDenied | Conflict | StoreUnavailable>
}>() {}

const notFound = (id: string) => `No operator registration ${id}.`

/** Builds the operator review use case on the stores. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const fn = yield* UseCase.fn
  const store = yield* SenderIdStore
  const accounts = yield* AccountStore
  const ids = yield* IdGenerator

  /** The caller's account when it is an operator's, with its network. */
  const operatorOf = (principal: Principal) =>
    Effect.map(accounts.findAccount(principal.accountId), (account) =>
      Option.filter(
        account,
        (a): a is Account & { readonly network: string } => a.type === "operator" && a.network !== undefined
      ))

  const isOf = (operator: Account & { readonly network: string }) => (r: Registration) =>
    r.network === operator.network && operator.markets.includes(r.market)

  const list = fn("OperatorReview.list")(function*(principal: Principal, input: ListRegistrations) {
    yield* requirePermission(principal, "operator:read")
    const found = yield* operatorOf(principal)
    if (Option.isNone(found)) {
      return yield* new PermissionDenied({
        code: "permission_denied",
        message: "Only an operator account lists Sender ID registrations; yours is not one."
      })
    }
    const operator = found.value
    const pageSize = yield* Pagination.pageSizeOf(input.pageSize)
    const { cursor: _, pageSize: __, ...filters } = input
    const bound = { list: "operator_registrations", ...filters }
    const after = yield* Pagination.after(input.cursor, bound)
    const filter: RegistrationFilter = { network: operator.network, markets: operator.markets, ...filters }
    const rows = yield* store.listRegistrations(filter, after, pageSize + 1)
    return Pagination.of(rows, pageSize, bound, (r) => ({ createdAt: r.submittedAt, id: r.id }))
  })

  /** The registration `id` when it is for the caller's network; not found for anyone else, as another account's resource is. */
  const findAs = (principal: Principal, id: string) =>
    Effect.gen(function*() {
      const operator = yield* operatorOf(principal)
      const found = yield* store.findRegistration(id)
      if (Option.isNone(operator) || Option.isNone(found) || !isOf(operator.value)(found.value)) {
        return yield* new NotFound({ message: notFound(id) })
      }
      return found.value
    })

  const get = fn("OperatorReview.get")(function*(principal: Principal, id: string) {
    yield* requirePermission(principal, "operator:read")
    return yield* findAs(principal, id)
  })

  const decide = fn("OperatorReview.decide")(function*(principal: Principal, id: string, decision: Decision) {
    yield* requirePermission(principal, "operator:write")
    if (decision.status === "rejected" && decision.reason.trim() === "") {
      return yield* invalidParameter("reason", "reason must not be blank.")
    }
    if (decision.status === "info_requested" && decision.message.trim() === "") {
      return yield* invalidParameter("message", "message must not be blank.")
    }
    const registration = yield* findAs(principal, id)
    return yield* Lifecycle.update(
      store,
      registration.sidId,
      notFound(id),
      () => true,
      (current) =>
        Effect.gen(function*() {
          const stored = current.registrations.find((r) => r.id === id)
          if (stored === undefined) return yield* new NotFound({ message: notFound(id) })
          if (!isAwaitingOperator(stored.status)) {
            return yield* new Conflict({
              code: "invalid_state_transition",
              message: `Only a registration pending review or resubmitted can be decided; ${id} is ${stored.status}.`
            })
          }
          const now = yield* Clock.currentTimeMillis
          const { message: _, reason: __, ...rest } = stored
          const decided: Registration = { ...rest, ...decision, decidedAt: now }
          const [made] = yield* Lifecycle.move(ids, current, current.record, [decided], now)
          return [made, decided] as const
        })
    )
  })

  return OperatorReview.of({ list, get, decide })
})

/** `make` as a layer. @since 0.1.0 @category layers */
export const layer: Layer.Layer<OperatorReview, never, SenderIdStore | AccountStore | IdGenerator> = Layer.effect(
  OperatorReview,
  make
)
