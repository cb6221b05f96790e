/**
 * What may import what (docs/architecture.md, "What may import what"): `npm run lint` checks it.
 * Each list below is in order from the bottom up: a folder imports only the folders before it in
 * its list and the shared modules; the shared modules import no folder of the list.
 */

/** Core's capabilities, from the bottom up. */
const core = [
  "idempotency",
  "mail",
  "accounts",
  "optOuts",
  "brands",
  "senderIds",
  "messaging",
  "routing",
  "webhooks",
  "admin"
]
/** Core's compositions: they put the capabilities together, and nothing in core imports them. */
const coreCompositions = ["index", "Services", "Stores", "Workers", "Demo", "CachedLookups"]
/** store-sql's capabilities, named and ordered as core's. */
const storeSql = ["idempotency", "mail", "accounts", "optOuts", "brands", "senderIds", "messaging", "webhooks"]
/** http's endpoint groups: each imports the envelope and the middleware, never `Api.ts` or another group. */
const httpGroups = ["brands", "senderIds", "messaging", "webhooks", "optOuts", "health", "metrics"]
/** api's folders beneath its groups, from the bottom up: the envelope, accounts, the middleware's declarations. */
const apiLayers = ["envelope", "accounts", "middleware"]
/** api's groups, named as http's: each one's JSON and endpoints. */
const apiGroups = httpGroups

const any = (names) => `(${names.join("|")})`

/** A rule for each capability of `order` under `root`: nothing above it. */
const ordered = (pkg, root, order) =>
  order.slice(0, -1).map((name, i) => ({
    name: `${pkg}-${name}-imports-only-below`,
    comment: `${root}${name}/ is below ${order.slice(i + 1).join(", ")}: it may not import them (docs/architecture.md)`,
    severity: "error",
    from: { path: `^${root}${name}/` },
    to: { path: `^${root}${any(order.slice(i + 1))}/` }
  }))

/** The shared modules of `root`: its root modules and internal/, but not its compositions. */
const sharedOf = (root, compositions) => ({
  path: `^${root}(internal/|[^/]+[.]ts$)`,
  pathNot: `^${root}${any(compositions)}[.]ts$`
})

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A module may not import itself through others: the layers only point down.",
      severity: "error",
      from: { path: "^packages/[^/]+/src/" },
      to: { circular: true }
    },
    {
      name: "api-imports-no-other-package",
      comment:
        "packages/api is the contract as code, beneath everything: it imports no other @sendline package, only effect and @effect/platform (docs/architecture.md).",
      severity: "error",
      from: { path: "^packages/api/" },
      to: { path: "^packages/(?!api/)" }
    },
    {
      name: "client-imports-only-api",
      comment: "packages/client is the typed client: of Sendline it imports only the API it calls (@sendline/api).",
      severity: "error",
      from: { path: "^packages/client/src/" },
      to: { path: "^packages/(?!(client|api)/)" }
    },
    {
      name: "core-imports-no-other-package",
      comment:
        "packages/core is the pure core: of Sendline it imports only the contract (@sendline/api) (docs/architecture.md).",
      severity: "error",
      from: { path: "^packages/core/src/", pathNot: "^packages/core/src/testing/" },
      to: { path: "^packages/(?!(core|api)/)" }
    },
    {
      name: "packages-import-no-http",
      comment: "@sendline/http is the top: no other package imports it.",
      severity: "error",
      from: { path: "^packages/(?!http/)[^/]+/src/" },
      to: { path: "^packages/http/" }
    },
    {
      name: "src-imports-no-tests",
      comment: "Source never imports a test or the bench.",
      severity: "error",
      from: { path: "^packages/[^/]+/src/" },
      to: { path: "(^packages/[^/]+/test/|^bench/|^examples/)" }
    },
    ...ordered("core", "packages/core/src/", core),
    {
      name: "core-shared-imports-no-capability",
      comment:
        "core's shared modules (its root modules and internal/) are beneath every capability: they import none, nor a composition.",
      severity: "error",
      from: sharedOf("packages/core/src/", coreCompositions),
      to: { path: `^packages/core/src/(${any([...core, "testing"])}/|${any(coreCompositions)}[.]ts$)` }
    },
    {
      name: "core-capability-imports-no-composition",
      comment:
        "A capability of core imports no composition (Services, Workers, Stores, Demo, CachedLookups, index) and no testing kit.",
      severity: "error",
      from: { path: `^packages/core/src/${any(core)}/` },
      to: { path: `^packages/core/src/(testing/|${any(coreCompositions)}[.]ts$)` }
    },
    ...ordered("store-sql", "packages/store-sql/src/", storeSql),
    {
      name: "store-sql-shared-imports-no-capability",
      comment:
        "store-sql's shared modules (the dialect seam, migrations, rows, batcher, queues, events) import no capability folder and not SqlStore or index.",
      severity: "error",
      from: sharedOf("packages/store-sql/src/", ["index", "SqlStore"]),
      to: { path: `^packages/store-sql/src/(${any(storeSql)}/|(index|SqlStore)[.]ts$)` }
    },
    ...ordered("api", "packages/api/src/", apiLayers),
    {
      name: "api-layers-import-no-group",
      comment:
        "api's envelope, accounts and middleware are beneath its groups: they import none, nor Api.ts or index.ts.",
      severity: "error",
      from: { path: `^packages/api/src/${any(apiLayers)}/` },
      to: { path: `^packages/api/src/(${any(apiGroups)}/|(Api|index)[.]ts$)` }
    },
    {
      name: "api-shared-imports-no-folder",
      comment:
        "api's shared modules (Errors, Timestamp, Event) are beneath every folder: they import none, nor Api.ts or index.ts.",
      severity: "error",
      from: sharedOf("packages/api/src/", ["index", "Api"]),
      to: { path: `^packages/api/src/(${any([...apiLayers, ...apiGroups])}/|(Api|index)[.]ts$)` }
    },
    ...apiGroups.map((group) => ({
      name: `api-${group}-stays-in-its-group`,
      comment: `api's ${group}/ imports no other group, nor Api.ts, which composes them.`,
      severity: "error",
      from: { path: `^packages/api/src/${group}/` },
      to: { path: `^packages/api/src/(${any(apiGroups.filter((g) => g !== group))}/|(Api|index)[.]ts$)` }
    })),
    {
      name: "http-envelope-imports-only-itself",
      comment:
        "http's envelope (the wire shapes and errors) is the bottom: it imports nothing else of http, least of all the API it serves.",
      severity: "error",
      from: { path: "^packages/http/src/envelope/" },
      to: { path: "^packages/http/src/", pathNot: "^packages/http/src/envelope/" }
    },
    {
      name: "http-middleware-imports-only-envelope",
      comment:
        "http's middleware serves whatever API it is given: it imports the envelope, never Api.ts, a group or the server.",
      severity: "error",
      from: { path: "^packages/http/src/middleware/" },
      to: { path: "^packages/http/src/", pathNot: "^packages/http/src/(envelope|middleware)/" }
    },
    {
      name: "http-group-imports-no-api-or-server",
      comment:
        "An endpoint group of http imports the envelope and the middleware: never api's Api.ts, which composes the groups (its handlers build on api's group alone, Pipeline.served), nor the server.",
      severity: "error",
      from: { path: `^packages/http/src/${any(httpGroups)}/` },
      to: { path: "^packages/(http/src/(server/|(bin|index)[.]ts$)|api/src/(Api|index)[.]ts$)" }
    },
    ...httpGroups.map((group) => ({
      name: `http-${group}-stays-in-its-group`,
      comment: `http's ${group}/ imports no other group.`,
      severity: "error",
      from: { path: `^packages/http/src/${group}/` },
      to: { path: `^packages/http/src/${any(httpGroups.filter((g) => g !== group))}/` }
    }))
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      conditionNames: ["@sendline/source", "import", "types", "default"],
      exportsFields: ["exports"],
      extensions: [".ts", ".js", ".mjs", ".json"]
    },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
