/**
 * How the rows of the Sendline tables map to the domain of `@sendline/core` and back: each table
 * is one `Schema` whose Type is the domain type and whose Encoded is the row, so a column is
 * written once, for reading and writing alike, and both stores share it (the tables have the same
 * names and columns in both).
 *
 * A row that does not decode (a status this version does not know, JSON that does not parse) is a
 * defect, `UnreadableRow`, naming its table and column: never wrong data, and never a
 * `StoreUnavailable` that would tell clients to retry what can never work.
 *
 * @since 0.1.0
 */
import { Effect, Either, Option, Schema } from "effect"
import type { ParseResult } from "effect"

/**
 * An epoch-millisecond timestamp as a driver returns it: SQLite's INTEGER as a number,
 * PostgreSQL's BIGINT as a string (node-postgres keeps int8 exact, as it may exceed 2^53; our
 * timestamps never do) unless the embedder's client parses it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Int8 = Schema.declare(
  (u: unknown): u is number | string => typeof u === "number" || (typeof u === "string" && /^-?[0-9]+$/.test(u)),
  { identifier: "Int8", description: "an integer, or its digits as PostgreSQL's BIGINT arrives" }
).pipe(Schema.transform(Schema.Number, { strict: true, decode: Number, encode: (n) => n }))

/**
 * A field stored in the column `name` (its snake_case spelling).
 *
 * @since 0.1.0
 * @category schemas
 */
export const column = <const Name extends string, S extends Schema.Schema.All>(name: Name, schema: S) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(name))

/**
 * An optional field stored in a nullable column: NULL decodes as an absent field, an absent (or
 * undefined) field encodes as NULL, so that every row written has every column.
 *
 * @since 0.1.0
 * @category schemas
 */
export const nullable = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  Schema.requiredToOptional(Schema.NullOr(schema), Schema.UndefinedOr(Schema.typeSchema(schema)), {
    decode: Option.fromNullable,
    encode: (value) => Option.getOrNull(value) ?? null
  })

/**
 * A row that this version of Sendline cannot read: a defect (HTTP 500, logged), naming the table,
 * the column and what it should hold, never the value it holds nor any SQL.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnreadableRow extends Schema.TaggedError<UnreadableRow>("@sendline/store-sql/UnreadableRow")(
  "UnreadableRow",
  { table: Schema.String, column: Schema.String, problem: Schema.String }
) {
  /** One sentence for the log. */
  override get message(): string {
    return `A row of ${this.table} is not what this version of Sendline stores: ${this.column}: ${this.problem}`
  }
}

/** What the issue's node should hold, without the value it holds. */
const problemOf = (issue: ParseResult.ParseIssue): string =>
  issue._tag === "Missing"
    ? "missing"
    : issue._tag === "Unexpected"
    ? "unexpected"
    : issue._tag === "Pointer"
    ? "unreadable"
    : `expected ${String(issue.ast)}`

/** The column at fault in a row's decode failure (the first one), and what it should hold. */
const faultOf = (issue: ParseResult.ParseIssue): { readonly column: string; readonly problem: string } => {
  switch (issue._tag) {
    case "Pointer": {
      const [key] = Array.isArray(issue.path) ? issue.path : [issue.path]
      return { column: `column ${String(key)}`, problem: problemOf(issue.issue) }
    }
    case "Composite":
      return faultOf(Array.isArray(issue.issues) ? issue.issues[0]! : issue.issues as ParseResult.ParseIssue)
    case "Refinement":
    case "Transformation":
      return faultOf(issue.issue)
    default:
      return { column: "the row", problem: problemOf(issue) }
  }
}

/**
 * A table: its name (for `UnreadableRow`) and its schema, from domain value to row, with that
 * schema's decoder and encoder compiled once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Table<A, I> {
  readonly name: string
  readonly schema: Schema.Schema<A, I>
  /** The rows as domain values; a row that does not decode dies with `UnreadableRow`. */
  readonly decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>>
  /** The first of the rows, if any, as `decode` reads it. */
  readonly decodeFirst: (rows: ReadonlyArray<unknown>) => Effect.Effect<Option.Option<A>>
  /** The row of a domain value, every column present. */
  readonly encode: (value: A) => I
}

/**
 * The table `name` described by `schema`, whose Type must be exactly `A`, the domain type:
 * `Rows.table<Message.Message>()("sendline_messages", Schema.Struct({ … }))`. Columns the schema
 * does not name (`claimed_until`) are ignored when reading.
 *
 * @since 0.1.0
 * @category constructors
 */
export const table = <A>() => <I>(name: string, schema: Schema.Schema<A, I>): Table<A, I> => {
  const decodeRow = Schema.decodeUnknownEither(schema, { onExcessProperty: "ignore" })
  const decode = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>> => {
    const decoded: Array<A> = []
    for (const row of rows) {
      const result = decodeRow(row)
      if (Either.isLeft(result)) return Effect.die(new UnreadableRow({ table: name, ...faultOf(result.left.issue) }))
      decoded.push(result.right)
    }
    return Effect.succeed(decoded)
  }
  return {
    name,
    schema,
    decode,
    decodeFirst: (rows) => Effect.map(decode(rows.slice(0, 1)), (decoded) => Option.fromNullable(decoded[0])),
    encode: Schema.encodeSync(schema)
  }
}
