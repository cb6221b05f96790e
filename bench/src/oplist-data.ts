/**
 * The operator list bench's data: Sender ID records and their operator registrations in the AU
 * market, written by plain SQL into a migrated Sendline database, so that the store's own indexes
 * and triggers see every row as they would in production. Every value is a function of the row's
 * number through a seeded hash computed by the database itself (`INSERT … SELECT` over a series:
 * a recursive CTE on SQLite, `generate_series` on PostgreSQL), so both stores hold the same rows
 * and a run is repeatable.
 *
 * The shape: each Sender ID has one registration per network (telstra, optus, vodafone), all
 * submitted at its creation; the bench lists as the telstra operator. A size is the number of
 * registrations that operator sees, one per Sender ID: 1,000,000 is a million Sender IDs and three
 * million rows in the registrations table.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Account } from "@sendline/core"
import { Effect } from "effect"

/** Bumped whenever the generated rows change, so that a cached database is made again. */
export const dataVersion = 2

/** The seed of every hash below. */
const seed = 20261125

/** The networks of the AU market; the bench lists as the first. */
const networks = ["telstra", "optus", "vodafone"] as const

/** The operator the bench lists as. */
export const operatorNetwork = networks[0]

/** The bench's "now": every registration was submitted in the two years before it. */
const now = Date.UTC(2026, 10, 25)

const day = 86_400_000

/** One Sender ID in `rareEvery` has the rare token in its brand name: 1 of the operator's rows at 10k, 100 at 1M. */
const rareEvery = 10_000

/** The word of the rare brands, which no other generated name contains. */
const rareWord = "Vexlor"

/** The filters the bench times (substrings as an operator would type them). */
export const queries = {
  status: "pending_operator_review",
  market: "AU",
  senderId: "bake",
  brandName: "coffee",
  rareBrandName: "vexlor",
  submitterType: "aggregator",
  submittedAfter: now - 30 * day,
  submittedBefore: now - 365 * day
} as const

const places = [
  "Harbour",
  "Northside",
  "Coastal",
  "Summit",
  "Riverside",
  "Golden",
  "Southern",
  "Eastern",
  "Western",
  "Bayside",
  "Highland",
  "Valley",
  "Metro",
  "Central",
  "Pacific",
  "Outback",
  "Sunrise",
  "Evergreen",
  "Silverline",
  "Redgum",
  "Bluewater",
  "Ironbark",
  "Wattle",
  "Banksia",
  "Kookaburra",
  "Sandstone",
  "Lakeside",
  "Parkside",
  "Hillcrest",
  "Greenfield",
  "Seaview",
  "Brightwater",
  "Stonebridge",
  "Oakwood",
  "Pinecrest",
  "Riverbend",
  "Marlin",
  "Coral",
  "Jarrah",
  "Saltbush",
  "Southbank",
  "Northgate",
  "Eastwood",
  "Kingsford",
  "Queensbury",
  "Ashgrove",
  "Brookvale",
  "Fairhaven",
  "Clearwater",
  "Tasman"
]
// an empty one in two: half the names have no adjective
const adjectives = [
  "Premium",
  "Express",
  "Family",
  "Quality",
  "Smart",
  "Local",
  "United",
  "Prime",
  "Modern",
  "Classic",
  "First",
  "Royal",
  "Budget",
  "Elite",
  "Trusty",
  "Urban"
]
// "Coffee" is one of 32: ~3 % of the names
const nouns = [
  "Coffee",
  "Bakery",
  "Dental",
  "Plumbing",
  "Fitness",
  "Motors",
  "Pharmacy",
  "Realty",
  "Logistics",
  "Florist",
  "Pets",
  "Legal",
  "Finance",
  "Energy",
  "Telecom",
  "Travel",
  "Insurance",
  "Electrical",
  "Roofing",
  "Cleaning",
  "Catering",
  "Medical",
  "Optical",
  "Tutoring",
  "Salon",
  "Hardware",
  "Brewing",
  "Cinemas",
  "Storage",
  "Vets",
  "Solar",
  "Bikes"
]
const suffixes = ["Pty Ltd", "Co", "Group", "Services", "Australia", "& Sons", "Studio", "Holdings"]
const useCases = [
  "Appointment reminders",
  "Order and delivery updates",
  "One-time passcodes",
  "Account alerts",
  "Offers to subscribers"
]
const matchTypes = ["business_name", "company_name", "trading_name", "trademark", "domain"]

/** The submitting accounts: 40 % brands, 35 % aggregators, 25 % CPaaS providers. */
const submitterCount = 300
const submitterType = (i: number): "brand" | "aggregator" | "cpaas" =>
  i % 20 < 8 ? "brand" : i % 20 < 15 ? "aggregator" : "cpaas"
const submitterKinds = { brand: "Retail", aggregator: "Messaging", cpaas: "Cloud Comms" } as const

const pad = (prefix: string, n: number) => `${prefix}_${String(n).padStart(26, "0")}`

/** The accounts the rows refer to: the submitters, then one operator per network. */
const accounts: ReadonlyArray<Account.Account> = [
  ...Array.from({ length: submitterCount }, (_, i): Account.Account => ({
    id: pad("acct", i),
    name: `${places[i % places.length]} ${submitterKinds[submitterType(i)]} ${i}`,
    type: submitterType(i),
    adminEmail: `admin${i}@submitter.example`,
    markets: ["AU"],
    identifiers: [],
    createdAt: now - 800 * day
  })),
  ...networks.map((network, i): Account.Account => ({
    id: pad("acct", submitterCount + i),
    name: `${network[0]!.toUpperCase()}${network.slice(1)} Operator`,
    type: "operator",
    adminEmail: `registrations@${network}.example`,
    network,
    markets: ["AU"],
    identifiers: [],
    createdAt: now - 800 * day
  }))
]

const P = 2147483647 // 2^31 − 1: every product below stays under 2^63 on both databases

/** The row's base hash: `n` spread over [0, P). */
const base = (n: string) => `((${n}) * 2654435761 + ${seed}) % ${P}`
/** A hash of the base `x` for one use (`salt`), nonlinear so that uses do not correlate. */
const hash = (x: string, salt: number) => {
  const y = `(${x} + ${salt * 104729})`
  return `((${y} * ${y}) % ${P} * 48271 % ${P})`
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`

/** The SQL that differs between the databases. */
interface Dialect {
  /** The integers from `first` to `last` as a CTE `series(n)` (its text after `WITH RECURSIVE`). */
  readonly series: (first: number, last: number) => string
  /** The element `index` (0-based, an integer expression) of a constant list of strings. */
  readonly pick: (list: ReadonlyArray<string>, index: string) => string
  /** `prefix_` and `n` padded to 26 digits: an id of the usual shape. */
  readonly id: (prefix: string, n: string) => string
}

const sqlite: Dialect = {
  series: (first, last) => `series(n) AS (SELECT ${first} UNION ALL SELECT n + 1 FROM series WHERE n < ${last})`,
  pick: (list, index) => `(${quote(JSON.stringify(list))} ->> (${index}))`,
  id: (prefix, n) => `('${prefix}_' || printf('%026d', ${n}))`
}

const pg: Dialect = {
  series: (first, last) => `series(n) AS (SELECT CAST(g AS BIGINT) FROM generate_series(${first}, ${last}) AS g)`,
  pick: (list, index) => `(ARRAY[${list.map(quote).join(", ")}])[(${index}) + 1]`,
  id: (prefix, n) => `('${prefix}_' || lpad(CAST(${n} AS TEXT), 26, '0'))`
}

/** A registration's status from its hash: 55 % approved, 20 % pending, 8 % rejected, 10 % info requested, 7 % resubmitted. */
const registrationStatus = (h: string) =>
  `CASE WHEN ${h} % 100 < 55 THEN 'approved' WHEN ${h} % 100 < 75 THEN 'pending_operator_review'
    WHEN ${h} % 100 < 83 THEN 'rejected' WHEN ${h} % 100 < 93 THEN 'info_requested' ELSE 'resubmitted' END`

/**
 * The CTEs `h` and `g`: for each Sender ID `n` of `series`, the columns shared by its record and
 * its registrations (`n`, `x` its base hash, `s0`–`s2` its registrations' statuses,
 * `submitted_at`, `place`, `adjective`, `noun`, `suffix`, `account`, `digits`, `use_case`,
 * `match_type`). Both are materialized, so that each hash is computed once a row: inlined, every
 * reference to a column would compute its expression again.
 */
const senderIdCtes = (d: Dialect) => {
  const salts = [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12]
  const statusHashes = networks.map((_, k) => `${hash(base(`3 * n + ${k}`), 9)} AS hs${k}`)
  const h = `h AS MATERIALIZED (SELECT n, x, ${salts.map((salt) => `${hash("x", salt)} AS h${salt}`).join(", ")},
      ${statusHashes.join(", ")}
    FROM (SELECT n, ${base("n")} AS x FROM series) AS b)`
  const adjectiveOrNone = [...adjectives, ...adjectives.map(() => "")]
  const g = `g AS MATERIALIZED (SELECT n, x, h12,
      ${networks.map((_, k) => `${registrationStatus(`hs${k}`)} AS s${k}`).join(", ")},
      ${now - 730 * day} + h5 % 730 * ${day} + h6 % ${day} AS submitted_at,
      ${d.pick(places, `h1 % ${places.length}`)} AS place,
      ${d.pick(adjectiveOrNone, `h2 % ${adjectiveOrNone.length}`)} AS adjective,
      CASE WHEN n % ${rareEvery} = ${rareEvery >> 1} THEN '${rareWord}' ELSE ${
    d.pick(nouns, `h3 % ${nouns.length}`)
  } END AS noun,
      ${d.pick(suffixes, `h4 % ${suffixes.length}`)} AS suffix,
      h7 % ${submitterCount} AS account,
      h8 % 1000 AS digits,
      ${d.pick(useCases, `h10 % ${useCases.length}`)} AS use_case,
      ${d.pick(matchTypes, `h11 % ${matchTypes.length}`)} AS match_type
    FROM h)`
  return `${h}, ${g}`
}

/** The derived columns of a Sender ID over `g` (`senderIdCtes`). */
const named =
  `g.place || CASE WHEN g.adjective = '' THEN '' ELSE ' ' || g.adjective END || ' ' || g.noun || ' ' || g.suffix`
const senderIdString = `upper(substr(g.place, 1, 4) || substr(g.noun, 1, 4)) || CAST(g.digits AS TEXT)`
const matchValue = `CASE WHEN g.match_type = 'domain' THEN lower(g.noun) || '.com.au' ELSE ${named} END`

const accountsCte = () =>
  `accts(i, id, type, name) AS (VALUES ${
    accounts.slice(0, submitterCount).map((a, i) => `(${i}, ${quote(a.id)}, ${quote(a.type)}, ${quote(a.name)})`).join(
      ", "
    )
  })`

/** Inserts the Sender ID records numbered `first` to `last`. */
const insertSenderIds = (d: Dialect, first: number, last: number) => {
  const anyIs = (status: string) => `(g.s0 = '${status}' OR g.s1 = '${status}' OR g.s2 = '${status}')`
  const status = `CASE WHEN ${anyIs("rejected")} THEN 'rejected'
      WHEN g.s0 = 'approved' AND g.s1 = 'approved' AND g.s2 = 'approved' THEN
        CASE WHEN g.submitted_at + ${5 * day + 365 * day} <= ${now} THEN 'expired' ELSE 'registered' END
      WHEN ${anyIs("info_requested")} THEN 'info_requested' ELSE 'pending' END`
  const decided =
    `(g.s0 <> 'pending_operator_review' OR g.s1 <> 'pending_operator_review' OR g.s2 <> 'pending_operator_review')`
  return `WITH RECURSIVE ${d.series(first, last)}, ${accountsCte()},
    ${senderIdCtes(d)},
    r AS (SELECT g.*, ${status} AS status FROM g)
    INSERT INTO sendline_sender_ids (id, account_id, sender_id, market, brand_name, status, created_at, registered_at,
      expires_at, brand_id, use_case, match_type, match_value, warned_expires_at, version, watch_at, claimed_until)
    SELECT ${d.id("sid", "g.n")}, a.id, ${senderIdString}, 'AU', ${named}, g.status, g.submitted_at,
      CASE WHEN g.status IN ('registered', 'expired') THEN g.submitted_at + ${5 * day} END,
      CASE WHEN g.status IN ('registered', 'expired') THEN g.submitted_at + ${5 * day + 365 * day} END,
      ${d.id("brand", "g.n")}, g.use_case, g.match_type, ${matchValue},
      CASE WHEN g.status = 'registered' AND g.submitted_at + ${5 * day + 335 * day} <= ${now}
        THEN g.submitted_at + ${5 * day + 365 * day} END,
      CASE WHEN ${decided} THEN 1 ELSE 0 END,
      CASE WHEN g.status = 'registered' THEN
        CASE WHEN g.submitted_at + ${5 * day + 335 * day} <= ${now} THEN g.submitted_at + ${5 * day + 365 * day}
          ELSE g.submitted_at + ${5 * day + 335 * day} END END,
      0
    FROM r AS g JOIN accts AS a ON a.i = g.account`
}

/** Inserts the registrations of the Sender IDs numbered `first` to `last`, one per network. */
const insertRegistrations = (d: Dialect, first: number, last: number) => {
  const nets = `nets(k, network) AS (VALUES ${networks.map((network, k) => `(${k}, '${network}')`).join(", ")})`
  const status = `CASE nets.k WHEN 0 THEN g.s0 WHEN 1 THEN g.s1 ELSE g.s2 END`
  const decidedAt = `CASE WHEN ${status} IN ('approved', 'rejected', 'info_requested')
      THEN g.submitted_at + g.h12 % ${5 * day} END`
  return `WITH RECURSIVE ${d.series(first, last)}, ${accountsCte()}, ${nets},
    ${senderIdCtes(d)}
    INSERT INTO sendline_operator_registrations (id, sid_id, network, market, sender_id, brand_id, brand_name,
      identifier_type, identifier_value, status, use_case, match_type, match_value, submitter_account_id,
      submitter_type, submitter_name, submitted_at, decided_at, reason, message)
    SELECT ${d.id("opreg", "3 * g.n + nets.k")}, ${d.id("sid", "g.n")}, nets.network, 'AU', ${senderIdString},
      ${d.id("brand", "g.n")}, ${named}, 'abn', CAST(51000000000 + g.n AS TEXT), ${status}, g.use_case, g.match_type,
      ${matchValue}, a.id, a.type, a.name, g.submitted_at, ${decidedAt},
      CASE WHEN ${status} = 'rejected' THEN 'The brand name does not match the ABN''s registered names.' END,
      CASE WHEN ${status} = 'info_requested' THEN 'Please send evidence that the brand trades under this name.' END
    FROM g CROSS JOIN nets JOIN accts AS a ON a.i = g.account`
}

/** How many Sender IDs one statement inserts (with their registrations): progress between them. */
const chunk = 50_000

/**
 * Writes `size` Sender ID records, their registrations (three each: `size` for each network) and
 * their accounts into the empty, migrated database of `sql`, in statements of `chunk` Sender IDs,
 * each in a transaction (a savepoint in the caller's); `progress` is told how many Sender IDs are
 * written after each.
 */
export const generate = (
  sql: SqlClient.SqlClient,
  insertAccount: (account: Account.Account) => Effect.Effect<void, unknown>,
  size: number,
  progress: (written: number, of: number) => Effect.Effect<void>
): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const d = sql.onDialectOrElse({ pg: () => pg, orElse: () => sqlite })
    yield* Effect.forEach(accounts, insertAccount, { discard: true })
    for (let first = 0; first < size; first += chunk) {
      const last = Math.min(first + chunk, size) - 1
      yield* sql.withTransaction(Effect.zipRight(
        sql.unsafe(insertSenderIds(d, first, last)),
        sql.unsafe(insertRegistrations(d, first, last))
      ))
      yield* progress(last + 1, size)
    }
  })
