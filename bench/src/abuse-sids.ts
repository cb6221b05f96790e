/**
 * Issue 29's Sender ID squatting, reproduced against the server `abuse.ts` runs (a checkout's
 * `sendline serve --demo` on a fresh SQLite file): plain HTTP, and the checkout's own `sendline`
 * for the one account HTTP cannot make. It imports nothing of Sendline's.
 *
 * 4. Squatting: the demo organisation's key registers Sender IDs for its brand as fast as it can
 *    (eight requests in flight) for a few seconds, walking a list of 2,000 names in which `Netflix`
 *    comes 200th: how many it got, and what the answers were. Then Netflix's Brand Owner (a `brand`
 *    account owning its ACN, made with `sendline accounts create`) submits its brand and registers
 *    `Netflix`: 201, or 409 because the squatter holds it. With CONTRACT §6's pending limit (50 by
 *    default) the squatter's 51st name and later are refused, so an owner that is not among the
 *    first 50 names is free; one that is stays held until operators reject the squat.
 * 5. Renewal stacking: ten `POST /v1/sids/{id}/renew` at once after another on the demo's
 *    registered `Sendline`: how many were accepted and how far `expires_at` moved.
 */
import { Agent, request } from "node:http"
import { sendline, tally, type Target as Server } from "./abuse-kit.js"

interface Answer {
  readonly status: number
  readonly json: any
}

/** The server, and how long a flood lasts. */
export interface Target extends Server {
  readonly seconds: number
}

const call = (target: Target, agent: Agent, method: string, path: string, key: string, body?: unknown) =>
  new Promise<Answer>((done, fail) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const headers: Record<string, string> = { authorization: `Bearer ${key}` }
    if (text !== undefined) headers["content-type"] = "application/json"
    const req = request({ host: "127.0.0.1", port: target.port, method, path, headers, agent }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const raw = Buffer.concat(chunks).toString()
        let json: unknown
        try {
          json = JSON.parse(raw)
        } catch {
          json = undefined
        }
        done({ status: res.statusCode ?? 0, json })
      })
    })
    req.on("error", fail)
    req.end(text)
  })

const owned = "Netflix"
const ownedAt = 199

/** Item 4: one key squatting as fast as it can, then the owner of a name it walked past. */
const squatting = async (target: Target, agent: Agent) => {
  const brands = await call(target, agent, "GET", "/v1/brands?page_size=100", target.key)
  const brand = (brands.json?.data ?? []).find((b: { name: string }) => b.name === "Sendline Demo Pty Ltd")
  if (brand === undefined) throw new Error(`the demo organisation has no demo brand: ${JSON.stringify(brands.json)}`)
  const names = Array.from({ length: 2000 }, (_, i) => (i === ownedAt ? owned : `Brand${String(i).padStart(4, "0")}`))
  const statuses: Array<number> = []
  const stopAt = performance.now() + target.seconds * 1000
  let next = 0
  const began = performance.now()
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() < stopAt && next < names.length) {
      const senderId = names[next++]!
      const answer = await call(target, agent, "POST", "/v1/sids", target.key, {
        sender_id: senderId,
        brand_id: brand.id,
        market: "AU",
        use_case: "Squatting",
        match_type: "business_name",
        match_value: "Sendline Demo Pty Ltd"
      })
      statuses.push(answer.status)
    }
  }))
  const took = (performance.now() - began) / 1000
  const got = statuses.filter((s) => s === 201).length

  const owner = sendline(target, [
    "accounts",
    "create",
    "--name",
    "Netflix Pty Ltd",
    "--type",
    "brand",
    "--admin-email",
    "legal@netflix.example",
    "--identifier",
    "ACN:010499966"
  ])
  const { key } = sendline(target, [
    "keys",
    "create",
    "--account",
    owner.id,
    "--permissions",
    "brands:read,brands:write,sids:read,sids:write"
  ])
  const created = await call(target, agent, "POST", "/v1/brands", key, {
    name: "Netflix Pty Ltd",
    identifier_type: "ACN",
    identifier_value: "010499966",
    market: "AU",
    contact: { name: "Legal", email: "legal@netflix.example", phone: "+61412345678" }
  })
  if (created.status !== 201) throw new Error(`the owner's brand: ${created.status} ${JSON.stringify(created.json)}`)
  const registered = await call(target, agent, "POST", "/v1/sids", key, {
    sender_id: owned,
    brand_id: created.json.data.id,
    market: "AU",
    use_case: "Account alerts",
    match_type: "trademark",
    match_value: owned
  })
  console.log(
    `4. one key registering Sender IDs for ${target.seconds} s (${statuses.length} tried in ${took.toFixed(1)} s, ${
      tally(statuses)
    }): ` +
      `${got} registered; then ${owned}'s Brand Owner registering ${owned} (the squatter's ${ownedAt + 1}th name): ` +
      `${registered.status} ${registered.json?.error?.code ?? registered.json?.data?.status}`
  )
}

/** Item 5: ten renewals one after another of the demo's registered Sender ID. */
const renewalStacking = async (target: Target, agent: Agent) => {
  const listed = await call(target, agent, "GET", "/v1/sids?market=AU&status=registered&page_size=100", target.key)
  const sid = (listed.json?.data ?? []).find((s: { sender_id: string }) => s.sender_id === "Sendline")
  if (sid === undefined) {
    throw new Error(`the demo organisation has no registered Sendline in AU: ${JSON.stringify(listed.json)}`)
  }
  const statuses: Array<number> = []
  let expiresAt = sid.expires_at as string
  for (let i = 0; i < 10; i++) {
    const answer = await call(target, agent, "POST", `/v1/sids/${sid.id}/renew`, target.key)
    statuses.push(answer.status)
    if (answer.status === 200) expiresAt = answer.json.data.expires_at
  }
  const years = (Date.parse(expiresAt) - Date.parse(sid.expires_at)) / (365 * 86_400_000)
  console.log(
    `5. ten renewals of a Sender ID registered just now: ${
      tally(statuses)
    }; expires_at ${sid.expires_at} -> ${expiresAt} (+${years.toFixed(1)} years)`
  )
}

/** Items 4 and 5, in order. */
export const run = async (target: Target) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  try {
    await squatting(target, agent)
    await renewalStacking(target, agent)
  } finally {
    agent.destroy()
  }
}
