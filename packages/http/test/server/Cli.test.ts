/**
 * The `sendline` executable as a user runs it: a real process on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sendline, serve, type Server } from "../support/Processes.js"
import { startupPatience, until } from "../support/Waiting.js"

describe("sendline CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "sendline-cli-"))
  const env = { SQLITE_PATH: join(dir, "cli.sqlite"), LOG_LEVEL: "Warning" }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // A test here runs `sendline` processes one after the other, each of which may take up to
  // startupPatience (then it is killed): its limit is that many patiences, so that only a hang reaches
  // it. One limit of 60 s for ten processes was reached at a load of 9 on 2 cores (~6 s a process).
  const processes = (count: number) => count * startupPatience

  it("creates an account, a key and a Sender ID, each printed as one JSON object", async () => {
    const account = await sendline(
      env,
      "accounts",
      "create",
      "--name",
      "Acme",
      "--type",
      "cpaas",
      "--admin-email",
      "ops@acme.test"
    )
    expect(account.code).toBe(0)
    const acct = JSON.parse(account.stdout)
    expect(acct).toMatchObject({ name: "Acme", type: "cpaas", admin_email: "ops@acme.test" })
    expect(acct.id).toMatch(/^acct_[0-9a-z]{26}$/)

    const key = await sendline(
      env,
      "keys",
      "create",
      "--account",
      acct.id,
      "--permissions",
      "messaging:send,messaging:read"
    )
    expect(key.code).toBe(0)
    const created = JSON.parse(key.stdout)
    expect(created.key).toMatch(/^sk_[0-9A-Za-z]{40}$/)
    expect(created.permissions).toEqual(["messaging:send", "messaging:read"])

    const importSid = (senderId: string, identifier: string, brandName: string) =>
      sendline(
        env,
        "sids",
        "import",
        "--account",
        acct.id,
        "--sender-id",
        senderId,
        "--market",
        "AU",
        "--identifier",
        identifier,
        "--brand-name",
        brandName
      )
    const sid = await importSid("Acme", "ABN:51 824 753 556", "Acme Pty")
    expect(sid.code).toBe(0)
    expect(JSON.parse(sid.stdout)).toMatchObject({
      sender_id: "Acme",
      market: "AU",
      identifier_type: "ABN",
      identifier_value: "51824753556",
      brand_name: "Acme Pty",
      status: "registered"
    })
    // another legal entity, under the holder's brand name and a look-alike: taken, the holder unnamed
    const taken = await importSid("ACRNE", "ACN:010499966", "Acme Pty")
    expect([taken.code, taken.stdout]).toEqual([1, ""])
    expect(taken.stderr).toContain(
      "sendline: sender_id_taken: Sender ID ACRNE, or one that looks like it, is held in AU by another legal entity."
    )
    const renamed = await importSid("ACME", "ABN:51824753556", "Acme Group")
    expect(renamed.code, renamed.stderr).toBe(0)
    const unchecked = await importSid("Bolt", "NZBN:9429041561461", "Bolt Pty")
    expect(unchecked.stderr).toContain("sendline: invalid_identifier: AU does not take NZBN identifiers")
    const without = await sendline(
      env,
      "sids",
      "import",
      "--account",
      acct.id,
      "--sender-id",
      "Cove",
      "--market",
      "AU",
      "--brand-name",
      "Cove Pty"
    )
    expect([without.code === 0, without.stderr]).toEqual([false, expect.stringContaining("--identifier")])
    const restricted = await importSid("Alert", "ABN:51824753556", "Acme Pty")
    expect(restricted.code).toBe(1)
    expect(restricted.stderr).toContain(
      "sendline: invalid_sender_id: sender_id must not consist only of restricted generic words in AU"
    )

    const dated = await sendline(
      env,
      "keys",
      "create",
      "--account",
      acct.id,
      "--permissions",
      "messaging:read",
      "--expires-at",
      "2030-01-31"
    )
    expect(dated.code).toBe(0)
    expect(JSON.parse(dated.stdout).expires_at).toBe("2030-01-31T00:00:00.000+00:00")

    const revoked = await sendline(env, "keys", "revoke", created.id)
    expect(revoked.code).toBe(0)
    expect(JSON.parse(revoked.stdout)).toEqual({ id: created.id, revoked: true })
  }, processes(10))

  it("reports errors on stderr with a non-zero exit and nothing on stdout", async () => {
    const unknownPermission = await sendline(
      env,
      "keys",
      "create",
      "--account",
      "acct_x",
      "--permissions",
      "everything"
    )
    expect(unknownPermission.code).not.toBe(0)
    expect(unknownPermission.stdout).toBe("")
    expect(unknownPermission.stderr).toContain("Unknown permission everything")
    expect(unknownPermission.stderr).toContain("(--permissions)")

    const badEmail = await sendline(
      env,
      "accounts",
      "create",
      "--name",
      "Acme",
      "--type",
      "cpaas",
      "--admin-email",
      "nope"
    )
    expect(badEmail.code).toBe(1)
    expect(badEmail.stderr).toContain(
      "sendline: invalid_parameter: admin_email must be an e-mail address. (--admin-email)"
    )

    const missingKey = await sendline(env, "keys", "revoke", "key_00000000000000000000000000")
    expect(missingKey.code).toBe(1)
    expect(missingKey.stderr).toContain("sendline: not_found: No active key key_00000000000000000000000000.")

    const badExpiry = await sendline(
      env,
      "keys",
      "create",
      "--account",
      "acct_x",
      "--permissions",
      "messaging:read",
      "--expires-at",
      "2030-02-30"
    )
    expect(badExpiry.code).toBe(1)
    expect(badExpiry.stderr).toContain(
      "sendline: invalid_parameter: --expires-at must be an RFC 3339 date-time, or a date"
    )
    expect(badExpiry.stderr).not.toContain("(--expires-at)")
  }, processes(4))

  it(
    "accounts create --identifier checks it as a brand's, prints it normalised, and refuses one another Brand Owner owns",
    async () => {
      const brand = ["accounts", "create", "--type", "brand", "--admin-email", "legal@acme.test"] as const
      const owner = await sendline(env, ...brand, "--name", "Acme Pty Ltd", "--identifier", "ABN:51 824 753 556")
      expect(owner.code).toBe(0)
      const acct = JSON.parse(owner.stdout)
      expect(acct.identifiers).toEqual([{ identifier_type: "ABN", identifier_value: "51824753556" }])

      const taken = await sendline(env, ...brand, "--name", "Acme Holdings", "--identifier", "ABN:51824753556")
      expect([taken.code, taken.stdout, taken.stderr]).toEqual([
        1,
        "",
        `sendline: invalid_identifier: ABN 51824753556 is owned by another Brand Owner account (${acct.id}). (--identifier)\n`
      ])

      const typo = await sendline(env, ...brand, "--name", "Acme Typo", "--identifier", "ACN:010 499 967")
      expect([typo.code, typo.stdout, typo.stderr]).toEqual([
        1,
        "",
        "sendline: invalid_identifier: ACN 010499967 fails its check digit. (--identifier)\n"
      ])
    },
    processes(3)
  )

  it("a usage error is one line on stderr led by its code, with exit 1, a missing command too", async () => {
    for (
      const [args, says] of [
        [
          ["keys", "create"],
          "sendline: invalid_request: Expected to find option: '--account'; Expected to find option: '--permissions'\n"
        ],
        [["keys", "revoke"], "sendline: invalid_request: Missing argument <KEY_ID>\n"],
        [
          ["accounts", "create", "--name", "N", "--type", "nope", "--admin-email", "a@b.test"],
          "sendline: invalid_request: Expected one of the following cases: brand, aggregator, cpaas, operator\n"
        ],
        [
          [],
          "sendline: invalid_request: sendline needs a command: serve, migrate, routes, accounts, keys, sids, opt-outs (sendline --help says more).\n"
        ],
        [
          ["keys"],
          "sendline: invalid_request: sendline keys needs a command: create, revoke (sendline keys --help says more).\n"
        ]
      ] as const
    ) {
      const refused = await sendline(env, ...args)
      expect(refused.code, args.join(" ")).toBe(1)
      expect(refused.stdout, args.join(" ")).toBe("")
      expect(refused.stderr, args.join(" ")).toBe(says)
    }
  }, processes(5))

  it("help on a stdout that is not a terminal has no colours", async () => {
    const help = await sendline(env, "keys", "create", "--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--account")
    expect(help.stdout).not.toMatch(/\x1b\[/)
  }, processes(1))

  it("refuses a setting out of range, naming it, before opening anything", async () => {
    for (
      const [name, value, says] of [
        ["RATE_LIMIT_PER_SECOND", "-5", "RATE_LIMIT_PER_SECOND must be 0 (no limit) or more"],
        ["RATE_LIMIT_PER_ACCOUNT_PER_SECOND", "-1", "RATE_LIMIT_PER_ACCOUNT_PER_SECOND must be 0 (no limit) or more"],
        ["MAX_MESSAGE_SEGMENTS", "0", "MAX_MESSAGE_SEGMENTS must be 1 or more"],
        ["CARRIER_MAX_PER_SECOND", "0", "CARRIER_MAX_PER_SECOND must be 1 or more"],
        [
          "LOG_LEVEL",
          "constructor",
          "LOG_LEVEL must be one of all, trace, debug, info, warn, warning, error, fatal, none"
        ],
        ["LOG_FORMAT", "logfmt", "LOG_FORMAT must be one of json, pretty"]
      ] as const
    ) {
      const refused = await sendline({ ...env, [name]: value }, "migrate")
      expect(refused.code, name).toBe(1)
      expect(refused.stderr, name).toContain(says)
    }
  }, processes(6))

  it(
    "refuses a store directory it cannot create, naming the path, even where Node's recursive mkdir spins (/proc)",
    async () => {
      const blocked = join(dir, "a-file")
      writeFileSync(blocked, "")
      for (const path of [join(blocked, "sendline.sqlite"), "/proc/sendline-nowhere/sendline.sqlite"]) {
        const refused = await sendline({ ...env, SQLITE_PATH: path }, "migrate")
        expect(refused.code).toBe(1)
        expect(refused.stderr).toContain(`Cannot create the directory of SQLite at ${path}`)
        expect(refused.stderr).not.toMatch(/\n\s+at /)
      }
    },
    processes(2)
  )

  it("refuses a file that is not a SQLite database, naming it and the reason", async () => {
    const text = join(dir, "notes.txt")
    writeFileSync(text, "not a database, but long enough to have what would be its header\n".repeat(10))
    const refused = await sendline({ ...env, SQLITE_PATH: text }, "migrate")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`Cannot open SQLite at ${text} (file is not a database)`)
    expect(refused.stderr).not.toMatch(/\n\s+at /)
  }, processes(1))

  describe("serve --demo", () => {
    let server: Server

    beforeAll(async () => {
      server = await serve({ ...env, SQLITE_PATH: join(dir, "demo.sqlite") })
    }, 2 * startupPatience)

    afterAll(() => server.stop())

    it("prints a demo key that sends the README's message: 201 queued", async () => {
      expect(server.key).toMatch(/^sk_[0-9A-Za-z]{40}$/)
      const response = await fetch(`${server.origin}/v1/messaging/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
        body: JSON.stringify({ to: "+61412345678", sender_id: "Sendline", body: "Hello from Sendline", market: "AU" })
      })
      expect(response.status).toBe(201)
      const body = (await response.json()) as { ok: boolean; data: { status: string }; meta: { request_id: string } }
      expect(body.ok).toBe(true)
      expect(body.data.status).toBe("queued")
      expect(response.headers.get("x-request-id")).toBe(body.meta.request_id)
    })

    it("the README's registry walk: brand, the Brand Owner's approval, a Sender ID, three operators' approvals, a send that is delivered", async () => {
      const printed = server.output()
      const ownerKey = /Demo Brand Owner key \(brands, owns ABN 51824753556\): (sk_\w{40})/.exec(printed)?.[1]
      const operatorKeys = Object.fromEntries(
        [...printed.matchAll(/Demo operator key \((\w+), AU: reviews Sender IDs\): (sk_\w{40})/g)].map((
          m
        ) => [m[1]!, m[2]!])
      )
      expect(ownerKey).toBeDefined()
      expect(Object.keys(operatorKeys).sort()).toEqual(["optus", "telstra", "vodafone"])
      const call = async (method: string, path: string, key: string, json?: unknown) => {
        const response = await fetch(`${server.origin}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(json === undefined ? {} : { "content-type": "application/json" })
          },
          ...(json === undefined ? {} : { body: JSON.stringify(json) })
        })
        return { status: response.status, body: (await response.json()) as any }
      }
      const brand = await call("POST", "/v1/brands", server.key, {
        name: "Demo Brand Owner Pty Ltd",
        identifier_type: "ABN",
        identifier_value: "51 824 753 556",
        market: "AU",
        website: "https://brand-owner.example",
        contact: { name: "Jo Citizen", email: "jo@brand-owner.example", phone: "+61412345678" }
      })
      expect(brand.status).toBe(201)
      expect((await call("GET", `/v1/brands/${brand.body.data.id}`, server.key)).status).toBe(403)
      const pending = await call("GET", "/v1/brand-relationships?status=pending", ownerKey!)
      expect(pending.body.data.map((r: any) => r.brand.id)).toEqual([brand.body.data.id])
      expect((await call("POST", `/v1/brand-relationships/${pending.body.data[0].id}/approve`, ownerKey!)).status).toBe(
        200
      )
      expect((await call("GET", `/v1/brands/${brand.body.data.id}`, server.key)).status).toBe(200)
      const sid = await call("POST", "/v1/sids", server.key, {
        sender_id: "BrandOwner",
        brand_id: brand.body.data.id,
        market: "AU",
        use_case: "Order updates",
        match_type: "business_name",
        match_value: "Demo Brand Owner Pty Ltd"
      })
      expect(sid.status).toBe(201)
      expect(sid.body.data.status).toBe("pending")
      for (const network of ["telstra", "optus", "vodafone"]) {
        const listed = await call("GET", "/v1/operator-registrations?sender_id=brandowner", operatorKeys[network]!)
        expect(listed.body.data.map((r: any) => [r.sender_id, r.network])).toEqual([["BrandOwner", network]])
        expect(
          (await call("POST", `/v1/operator-registrations/${listed.body.data[0].id}/approve`, operatorKeys[network]!))
            .status
        ).toBe(200)
      }
      const registered = await call("GET", `/v1/sids/${sid.body.data.id}`, server.key)
      expect(registered.body.data.status).toBe("registered")
      const sent = await call("POST", "/v1/messaging/messages", server.key, {
        to: "+61412345678",
        sender_id: "BrandOwner",
        body: "Your order has shipped",
        market: "AU"
      })
      expect(sent.status).toBe(201)
      await until("the message delivered", async () => {
        const status = (await call("GET", `/v1/messaging/messages/${sent.body.data.id}`, server.key)).body.data.status
        return status === "delivered" ? status : undefined
      })
    })

    it("a second serve on the same port exits 1, saying it cannot listen there, and prints no demo key", async () => {
      const port = new URL(server.origin).port
      const second = await sendline({ ...env, SQLITE_PATH: join(dir, "second.sqlite"), PORT: port }, "serve", "--demo")
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`sendline: Cannot listen on 127.0.0.1:${port} (listen EADDRINUSE`)
      expect(second.stdout).not.toContain("sk_")
    }, processes(1))
  })
})
