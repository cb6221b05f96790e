/**
 * The store suite's tests of the operator registrations of `SenderIdStore`: a registration found
 * by id, and the operators' list of them (its scope, every filter, the substrings, the order and
 * the pages). Each test lists a network of its own, so that other tests' rows never appear.
 *
 * @since 0.1.0
 */
import type { Vitest } from "@effect/vitest"
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Registration } from "../../senderIds/Registration.js"
import type { RegistrationFilter } from "../../senderIds/SenderIdStore.js"
import { SenderIdStore } from "../../senderIds/SenderIdStore.js"
import type { Stores } from "../../Stores.js"
import {
  fresh,
  freshAccount,
  listAllRegistrationPages,
  makeRegistration,
  makeSubmittedSenderId,
  T
} from "../Fixtures.js"

/** What sets one registration of `seed` apart. */
type Spec = Partial<Omit<Registration, "brand">> & { readonly brandName?: string }

/**
 * Inserts one Sender ID record with a registration per spec (on `network` in AU unless the spec
 * says otherwise): the store keeps a registration's columns as given, whatever its record's.
 */
const seed = (network: string, specs: ReadonlyArray<Spec>) =>
  Effect.gen(function*() {
    const senderIds = yield* SenderIdStore
    const record = makeSubmittedSenderId(yield* freshAccount, { senderId: fresh("Reg") })
    const registrations = specs.map(({ brandName, ...fields }) => {
      const registration = makeRegistration(record, network, fields)
      return brandName === undefined
        ? registration
        : { ...registration, brand: { ...registration.brand, name: brandName } }
    })
    yield* senderIds.insert(record, registrations, [])
    return registrations
  })

/** The order the list promises: submittedAt desc, then id desc. */
const newestFirst = (registrations: ReadonlyArray<Registration>) =>
  [...registrations].sort((a, b) => b.submittedAt - a.submittedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/** The ids of `registrations`, in their order. */
const ids = (registrations: ReadonlyArray<Registration>) => registrations.map((r) => r.id)

/** One page of up to 100 rows from the start. */
const listFirst = (filter: RegistrationFilter) =>
  Effect.flatMap(SenderIdStore, (senderIds) => senderIds.listRegistrations(filter, Option.none(), 100))

/** Registers the tests of the registrations of `SenderIdStore` on a suite's `it`. @since 0.1.0 @category suites */
export const tests = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("SenderIdStore: findRegistration answers a registration by id, whoever's it is, every field as written", () =>
    Effect.gen(function*() {
      const senderIds = yield* SenderIdStore
      const [pending, rejected, asked] = yield* seed(fresh("net"), [
        {},
        {
          status: "rejected",
          decidedAt: T + 1,
          reason: "Not the brand's name",
          submittedBy: { accountId: "acct_b", type: "brand", name: "Bolt" }
        },
        {
          status: "info_requested",
          decidedAt: T + 2,
          message: "Which site names \"Acme\"? ü 👋",
          matchType: "domain",
          matchValue: "acme.com.au"
        }
      ])
      for (const registration of [pending!, rejected!, asked!]) {
        assert.deepStrictEqual(yield* senderIds.findRegistration(registration.id), Option.some(registration))
      }
      assert.isTrue(Option.isNone(yield* senderIds.findRegistration(fresh("opreg"))))
    }))

  it.effect("SenderIdStore: listRegistrations answers the operator's network in its markets only, however the market filter asks", () =>
    Effect.gen(function*() {
      const network = fresh("net")
      const rows = yield* seed(network, [
        { market: "AU", submittedAt: T + 1 },
        { market: "NZ", submittedAt: T + 2 },
        { market: "AU", submittedAt: T + 3 },
        { market: "SG", submittedAt: T + 4 },
        { market: "NZ", submittedAt: T + 3 } // as new as the AU one: the id decides
      ])
      yield* seed(fresh("net"), [{ market: "AU" }, { market: "NZ" }]) // another network's, in the same markets
      const inMarkets = (...markets: ReadonlyArray<string>) =>
        newestFirst(rows.filter((r) => markets.includes(r.market)))
      assert.deepStrictEqual(ids(yield* listFirst({ network, markets: ["AU", "NZ"] })), ids(inMarkets("AU", "NZ")))
      assert.deepStrictEqual(
        ids(yield* listFirst({ network, markets: ["AU", "NZ", "AU"] })),
        ids(inMarkets("AU", "NZ"))
      )
      assert.deepStrictEqual(ids(yield* listFirst({ network, markets: ["SG"] })), ids(inMarkets("SG")))
      assert.deepStrictEqual(
        ids(yield* listFirst({ network, markets: ["AU", "NZ"], market: "NZ" })),
        ids(inMarkets("NZ"))
      )
      assert.deepStrictEqual(
        yield* listFirst({ network, markets: ["AU", "NZ"], market: "SG" }),
        [],
        "a market outside its own"
      )
      assert.deepStrictEqual(yield* listFirst({ network, markets: [] }), [], "no markets")
      assert.deepStrictEqual(
        yield* listFirst({ network: fresh("net"), markets: ["AU", "NZ", "SG"] }),
        [],
        "a network with none"
      )
      // several markets, a page after another
      const pages = yield* listAllRegistrationPages({ network, markets: ["SG", "NZ", "AU"] }, 2)
      assert.deepStrictEqual(pages.map((page) => page.length), [2, 2, 1])
      assert.deepStrictEqual(ids(pages.flat()), ids(newestFirst(rows)))
    }))

  it.effect("SenderIdStore: listRegistrations selects by each filter alone, and by all of them together", () =>
    Effect.gen(function*() {
      const network = fresh("net")
      const submitter = (type: "brand" | "aggregator" | "cpaas") => ({
        accountId: `acct_${type}`,
        type,
        name: `The ${type}`
      })
      const rows = yield* seed(network, [
        {
          submittedAt: T + 1,
          status: "approved",
          senderId: "Acme",
          brandName: "Acme Pty Ltd",
          submittedBy: submitter("cpaas")
        },
        {
          submittedAt: T + 2,
          status: "pending_operator_review",
          senderId: "AcmeBank",
          brandName: "Acme Bank Ltd",
          submittedBy: submitter("brand")
        },
        {
          submittedAt: T + 3,
          status: "approved",
          senderId: "Bolt",
          brandName: "Bolt Energy",
          submittedBy: submitter("aggregator")
        },
        {
          submittedAt: T + 4,
          status: "rejected",
          senderId: "BoltHome",
          brandName: "Acme Homes",
          submittedBy: submitter("brand")
        },
        {
          submittedAt: T + 5,
          status: "approved",
          senderId: "ACMEHOMES",
          brandName: "Bolt Homes",
          submittedBy: submitter("brand"),
          market: "NZ"
        },
        {
          submittedAt: T + 6,
          status: "resubmitted",
          senderId: "Cove",
          brandName: "Cove Co",
          submittedBy: submitter("cpaas")
        },
        {
          submittedAt: T + 7,
          status: "info_requested",
          senderId: "acme",
          brandName: "Dune Pty Ltd",
          submittedBy: submitter("brand")
        }
      ])
      const base = { network, markets: ["AU", "NZ"] }
      const contains = (value: string, text: string) => value.toLowerCase().includes(text.toLowerCase())
      const cases: ReadonlyArray<readonly [string, RegistrationFilter, (r: Registration) => boolean]> = [
        ["none", base, () => true],
        ["status", { ...base, status: "approved" }, (r) => r.status === "approved"],
        ["market", { ...base, market: "NZ" }, (r) => r.market === "NZ"],
        ["senderId", { ...base, senderId: "acme" }, (r) => contains(r.senderId, "acme")],
        ["brandName", { ...base, brandName: "homes" }, (r) => contains(r.brand.name, "homes")],
        ["submitterType", { ...base, submitterType: "brand" }, (r) => r.submittedBy.type === "brand"],
        ["submittedAfter", { ...base, submittedAfter: T + 3 }, (r) => r.submittedAt >= T + 3],
        ["submittedBefore", { ...base, submittedBefore: T + 5 }, (r) => r.submittedAt < T + 5],
        ["no row", { ...base, brandName: "Zebra" }, () => false],
        [
          "all",
          {
            ...base,
            status: "approved",
            market: "NZ",
            senderId: "HOME",
            brandName: "bolt",
            submitterType: "brand",
            submittedAfter: T + 5,
            submittedBefore: T + 6
          },
          (r) => r.submittedAt === T + 5
        ],
        [
          "several",
          { ...base, brandName: "acme", submitterType: "brand", submittedBefore: T + 7 },
          (r) => contains(r.brand.name, "acme") && r.submittedBy.type === "brand" && r.submittedAt < T + 7
        ]
      ]
      for (const [name, filter, selects] of cases) {
        const expected = newestFirst(rows.filter(selects))
        assert.deepStrictEqual(yield* listFirst(filter), expected, name)
      }
      assert.strictEqual(
        newestFirst(rows.filter(cases[cases.length - 1]![2])).length,
        2,
        "several rows pass every filter"
      )
    }))

  it.effect("SenderIdStore: listRegistrations finds Sender ID and brand name substrings in any case, every character literal (%, _, \\, \" too)", () =>
    Effect.gen(function*() {
      const network = fresh("net")
      const rows = yield* seed(network, [
        { submittedAt: T + 1, senderId: "A_B", brandName: "50% Off_Sale Pty" },
        { submittedAt: T + 2, senderId: "AxB", brandName: "500 Offers Pty" },
        { submittedAt: T + 3, senderId: "Acme_Co", brandName: "Acme_Co" },
        { submittedAt: T + 4, senderId: "AcmeXCo", brandName: "AcmeXCo" },
        { submittedAt: T + 5, senderId: "Say Hi", brandName: "Say \"Hi\" \\ Co" },
        { submittedAt: T + 6, senderId: "SAYHI", brandName: "Say Hi Co" }
      ])
      const [offSale, offers, underscore, x, quoted, plain] = rows
      const brand = (text: string) => Effect.map(listFirst({ network, markets: ["AU"], brandName: text }), ids)
      const sender = (text: string) => Effect.map(listFirst({ network, markets: ["AU"], senderId: text }), ids)
      const idsOf = (...found: ReadonlyArray<Registration | undefined>) => ids(newestFirst(found.map((r) => r!)))
      assert.deepStrictEqual(yield* brand("%"), idsOf(offSale), "% is a percent sign")
      assert.deepStrictEqual(yield* brand("0% OFF_"), idsOf(offSale))
      assert.deepStrictEqual(yield* brand("_"), idsOf(offSale, underscore), "_ is an underscore")
      assert.deepStrictEqual(yield* brand("acme_co"), idsOf(underscore))
      assert.deepStrictEqual(yield* brand("ACMEX"), idsOf(x))
      assert.deepStrictEqual(yield* brand("acme"), idsOf(underscore, x), "in any case")
      assert.deepStrictEqual(yield* brand("0 O"), idsOf(offers))
      assert.deepStrictEqual(yield* brand("\"hi\" \\"), idsOf(quoted), "quotes and backslashes as written")
      assert.deepStrictEqual(yield* brand("\\"), idsOf(quoted))
      assert.deepStrictEqual(yield* brand("hi"), idsOf(quoted, plain), "shorter than three characters")
      assert.deepStrictEqual(yield* brand("pty"), idsOf(offSale, offers))
      assert.deepStrictEqual(yield* sender("a_b"), idsOf(offSale))
      assert.deepStrictEqual(yield* sender("_"), idsOf(offSale, underscore))
      assert.deepStrictEqual(yield* sender("ay h"), idsOf(quoted))
      assert.deepStrictEqual(yield* sender("sayhi"), idsOf(plain))
      assert.deepStrictEqual(yield* sender("%"), [])
    }))

  it.effect("SenderIdStore: listRegistrations pages newest first by submittedAt then id, each page after the last row of the one before", () =>
    Effect.gen(function*() {
      const network = fresh("net")
      // ties on submittedAt, inserted in another order than they sort
      const rows = yield* seed(
        network,
        [3, 1, 3, 2, 5, 3, 4, 1].map((n) => ({ submittedAt: T + n, brandName: `Brand ${n} Pty` }))
      )
      const cases: ReadonlyArray<readonly [Partial<RegistrationFilter>, number, (r: Registration) => boolean]> = [
        [{}, 3, () => true],
        [{ brandName: "pty" }, 2, () => true],
        [{ submittedAfter: T + 2, submittedBefore: T + 5 }, 1, (r) => r.submittedAt >= T + 2 && r.submittedAt < T + 5]
      ]
      for (const [filter, pageSize, selects] of cases) {
        const pages = yield* listAllRegistrationPages({ network, markets: ["AU"], ...filter }, pageSize)
        assert.isTrue(pages.slice(0, -1).every((page) => page.length === pageSize), "every page but the last is full")
        assert.deepStrictEqual(ids(pages.flat()), ids(newestFirst(rows.filter(selects))), JSON.stringify(filter))
      }
    }))
}
