import { assert, it } from "@effect/vitest"
import type { Account, Admin, SenderId } from "@sendline/core"
import { AccountStore, Auth, Demo, Errors, Markets, SenderId as SenderIds, SenderIdStore } from "@sendline/core"
import { SqliteStore } from "@sendline/store-sqlite"
import { Clock, Context, Effect, Layer, Option, TestClock } from "effect"
import * as TestCore from "./TestCore.js"

/**
 * Every account and Sender ID record inserted into the store, by anyone (the stores have no
 * listing), and two ways to disturb it: `slow` makes each look-up give way to other fibers first,
 * as two processes starting on one database may both look before either inserts; `refuse` fails
 * the Sender ID inserts of those markets.
 */
class Recorder extends Context.Tag("test/Demo/Recorder")<Recorder, {
  readonly accounts: Array<Account.Account>
  readonly senderIds: Array<SenderId.SenderIdRecord>
  slow: boolean
  refuse: ReadonlyArray<string>
}>() {}

/** The store's account and Sender ID ports, recording what they insert: beneath `Admin` and `Demo` alike. */
const recording = Layer.effectContext(Effect.gen(function*() {
  const accounts = yield* AccountStore.AccountStore
  const senderIds = yield* SenderIdStore.SenderIdStore
  const recorder: Context.Tag.Service<Recorder> = { accounts: [], senderIds: [], slow: false, refuse: [] }
  const look = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.suspend(() => recorder.slow ? Effect.zipLeft(effect, Effect.yieldNow()) : effect)
  return Context.make(Recorder, recorder).pipe(
    Context.add(AccountStore.AccountStore, {
      ...accounts,
      findAccount: (id) => look(accounts.findAccount(id)),
      insertAccount: (account) =>
        Effect.tap(accounts.insertAccount(account), () => void recorder.accounts.push(account))
    }),
    Context.add(SenderIdStore.SenderIdStore, {
      ...senderIds,
      findById: (id) => look(senderIds.findById(id)),
      findRegistered: (accountId, senderId, market) => look(senderIds.findRegistered(accountId, senderId, market)),
      insert: (record, registrations, events) =>
        Effect.suspend(() =>
          recorder.refuse.includes(record.market)
            ? Effect.fail(new Errors.StoreUnavailable({ message: "refused by the test" }))
            : Effect.tap(senderIds.insert(record, registrations, events), () => void recorder.senderIds.push(record))
        )
    })
  )
}))

// Each test on a store of its own, so that the recorder sees every record the demo data has.
const fresh = Effect.provide(
  TestCore.layerOn(Layer.provideMerge(recording, SqliteStore.layerSqlite({ filename: ":memory:" })))
)

/** The demo data is complete and written once: one organisation, one Sender ID per market, one operator per network. */
const assertComplete = Effect.gen(function*() {
  const recorder = yield* Recorder
  const senderIds = yield* SenderIdStore.SenderIdStore
  assert.strictEqual(recorder.accounts.filter((a) => a.id === Demo.accountId).length, 1, "one demo organisation")
  for (const market of (yield* Markets.Markets).all) {
    const records = recorder.senderIds.filter((r) => r.accountId === Demo.accountId && r.market === market.code)
    assert.strictEqual(records.length, 1, `one Sender ID in ${market.code}`)
    const registered = yield* senderIds.findRegistered(Demo.accountId, Demo.senderId, market.code)
    assert.strictEqual(Option.getOrUndefined(registered)?.id, records[0]!.id)
    for (const network of market.networks) {
      const operators = recorder.accounts.filter((a) =>
        a.type === "operator" && a.network === network && a.markets.includes(market.code)
      )
      assert.strictEqual(operators.length, 1, `one operator for ${network} in ${market.code}`)
    }
  }
})

/** Distinct keys, each authenticating as the demo organisation. */
const assertWorking = (keys: ReadonlyArray<Admin.IssuedKey>) =>
  Effect.gen(function*() {
    assert.strictEqual(new Set(keys.map((k) => k.secret)).size, keys.length)
    assert.strictEqual(new Set(keys.map((k) => k.apiKey.id)).size, keys.length)
    const auth = yield* Auth.Auth
    for (const issued of keys) {
      assert.strictEqual((yield* auth.authenticate(`Bearer ${issued.secret}`)).accountId, Demo.accountId)
    }
  })

it.effect("two ensure runs: one organisation, one Sender ID per market, and two distinct keys that both work", () =>
  Effect.gen(function*() {
    const first = yield* Demo.ensure
    const again = yield* Demo.ensure
    yield* assertComplete
    yield* assertWorking([first, again])
  }).pipe(fresh))

it.effect("the AU demo Sender ID went through the registry: the demo brand approved by its Brand Owner, every AU operator's approval", () =>
  Effect.gen(function*() {
    yield* Demo.ensure
    const senderIds = yield* SenderIdStore.SenderIdStore
    const registered = Option.getOrThrow(
      yield* senderIds.findRegistered(Demo.accountId, Demo.senderId, Demo.registeredMarket)
    )
    const { record, registrations } = Option.getOrThrow(yield* senderIds.findById(registered.id))
    assert.isDefined(record.brandId)
    assert.strictEqual(record.matchType, "domain")
    const networks = Option.getOrThrow((yield* Markets.Markets).get(Demo.registeredMarket)).networks
    assert.deepStrictEqual(
      registrations.map((r) => [r.network, r.status]).sort(),
      networks.map((n) => [n, "approved"]).sort()
    )
    assert.deepStrictEqual(
      registrations.map((r) => r.brand.identifierValue),
      networks.map(() => Demo.brandOwnerIdentifier.identifierValue)
    )
    const keys = yield* Demo.issueOperatorKeys
    assert.deepStrictEqual(keys.map((k) => k.network), networks)
    const auth = yield* Auth.Auth
    for (const { issued, network } of keys) {
      const principal = yield* auth.authenticate(`Bearer ${issued.secret}`)
      assert.strictEqual(principal.accountId, Demo.operatorIdOf(Demo.registeredMarket, network))
      assert.deepStrictEqual([...principal.permissions].sort(), ["operator:read", "operator:write"])
    }
  }).pipe(fresh))

it.effect("a demo key works for 30 days, not at their end", () =>
  Effect.gen(function*() {
    const issued = yield* Demo.ensure
    const auth = yield* Auth.Auth
    yield* TestClock.adjust(Demo.keyLifetimeMillis - 1)
    assert.strictEqual((yield* auth.authenticate(`Bearer ${issued.secret}`)).accountId, Demo.accountId)
    yield* TestClock.adjust(1)
    assert.strictEqual((yield* Effect.flip(auth.authenticate(`Bearer ${issued.secret}`)))._tag, "Unauthenticated")
  }).pipe(fresh))

it.effect("two processes starting at once both get a working key; the organisation is created once", () =>
  Effect.gen(function*() {
    ;(yield* Recorder).slow = true
    const keys = yield* Effect.all([Demo.ensure, Demo.ensure], { concurrency: "unbounded" })
    yield* assertComplete
    yield* assertWorking(keys)
  }).pipe(fresh))

it.effect("a half-created demo (the organisation without its Sender IDs) is completed by the next ensure", () =>
  Effect.gen(function*() {
    yield* (yield* AccountStore.AccountStore).insertAccount({
      id: Demo.accountId,
      name: "Demo Organisation",
      type: "cpaas",
      adminEmail: "admin@demo.sendline.test",
      markets: (yield* Markets.Markets).all.map((m) => m.code),
      identifiers: [],
      createdAt: yield* Clock.currentTimeMillis
    })
    const senderIds = yield* SenderIdStore.SenderIdStore
    assert.isTrue(Option.isNone(yield* senderIds.findRegistered(Demo.accountId, Demo.senderId, "AU")))
    const issued = yield* Demo.ensure
    yield* assertComplete
    yield* assertWorking([issued])
  }).pipe(fresh))

it.effect("a start that failed part way through is completed by the next, writing nothing twice", () =>
  Effect.gen(function*() {
    const recorder = yield* Recorder
    recorder.refuse = ["SG"]
    assert.strictEqual((yield* Effect.flip(Demo.ensure))._tag, "StoreUnavailable")
    assert.deepStrictEqual(recorder.senderIds.map((r) => r.market), ["AU", "NZ"], "written before SG failed")
    recorder.refuse = []
    const issued = yield* Demo.ensure
    yield* assertComplete
    yield* assertWorking([issued])
  }).pipe(fresh))

it.effect("a demo started again after its Sender IDs expired registers them anew, once", () =>
  Effect.gen(function*() {
    yield* Demo.ensure
    yield* TestClock.adjust(SenderIds.termMillis + 1)
    const recorder = yield* Recorder
    recorder.slow = true
    const keys = yield* Effect.all([Demo.ensure, Demo.ensure], { concurrency: "unbounded" })
    const senderIds = yield* SenderIdStore.SenderIdStore
    const now = yield* Clock.currentTimeMillis
    for (const market of (yield* Markets.Markets).all) {
      const records = recorder.senderIds.filter((r) => r.market === market.code)
      assert.strictEqual(records.length, 2, `the first and its renewal in ${market.code}`)
      const registered = Option.getOrThrow(yield* senderIds.findRegistered(Demo.accountId, Demo.senderId, market.code))
      assert.strictEqual(registered.id, records[1]!.id)
      assert.isTrue(SenderIds.canSend(registered, now), `sendable in ${market.code}`)
    }
    yield* assertWorking(keys)
  }).pipe(fresh))

it.effect("the demo Brand Owner owns the ABR's example ABN, is created once, and gets a brands key", () =>
  Effect.gen(function*() {
    yield* Effect.all([Demo.ensure, Demo.ensure], { concurrency: "unbounded" })
    const accounts = yield* AccountStore.AccountStore
    const { identifierType, identifierValue } = Demo.brandOwnerIdentifier
    assert.deepStrictEqual(
      yield* accounts.findBrandOwner(identifierType, identifierValue),
      Option.some(Demo.brandOwnerId)
    )
    assert.strictEqual((yield* Recorder).accounts.filter((a) => a.id === Demo.brandOwnerId).length, 1)
    const issued = Option.getOrThrow(yield* Demo.issueBrandOwnerKey)
    const principal = yield* (yield* Auth.Auth).authenticate(`Bearer ${issued.secret}`)
    assert.strictEqual(principal.accountId, Demo.brandOwnerId)
    assert.deepStrictEqual([...principal.permissions].sort(), ["brands:read", "brands:write"])
  }).pipe(fresh))

it.effect("where another account owns the example ABN, the demo has no Brand Owner and still starts", () =>
  Effect.gen(function*() {
    const accounts = yield* AccountStore.AccountStore
    yield* accounts.insertAccount({
      id: "acct_someone",
      name: "Someone Pty Ltd",
      type: "brand",
      adminEmail: "legal@someone.example",
      markets: ["AU"],
      identifiers: [Demo.brandOwnerIdentifier],
      createdAt: yield* Clock.currentTimeMillis
    })
    const issued = yield* Demo.ensure
    yield* assertWorking([issued])
    assert.isTrue(Option.isNone(yield* accounts.findAccount(Demo.brandOwnerId)))
    assert.isTrue(Option.isNone(yield* Demo.issueBrandOwnerKey))
  }).pipe(fresh))
