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
import { Effect, Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"

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
 * A table: its name (for `UnreadableRow`) and its schema, from domain value to row, with the
 * codec compiled once from that schema.
 *
 * @since 0.1.0
 * @category models
 */
export interface Table<A, I> {
  /** The table's name in the database. */
  readonly name: string
  /** From domain value (Type) to row (Encoded). */
  readonly schema: Schema.Schema<A, I>
  /** The rows as domain values; a row that does not decode dies with `UnreadableRow`. */
  readonly decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>>
  /** The first of the rows, if any, as `decode` reads it. */
  readonly decodeFirst: (rows: ReadonlyArray<unknown>) => Effect.Effect<Option.Option<A>>
  /** The row of a domain value, every column present. */
  readonly encode: (value: A) => I
}

/** Whether `key` is one of `record`'s own properties. */
const has = (record: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(record, key)

/** Encodes a column's value with its schema; NULL, when the column may hold it, is NULL at once. */
const encodeColumn = (type: AST.AST): (cell: unknown) => unknown => {
  const encode = ParseResult.encodeSync(Schema.make(type))
  return AST.isUnion(type) && type.types.some((member) => AST.isLiteral(member) && member.literal === null)
    ? (cell) => cell === null ? null : encode(cell)
    : encode
}

/**
 * How the rows of a table are read and written. For a struct of columns (`Schema.Struct` of plain
 * fields, `column` and `nullable`: every table but one) the codec is compiled from the struct: a
 * row is checked and decoded column by column, each by its column's schema, then its fields are
 * renamed (NULL to absent); a value is renamed (absent to NULL), then encoded column by column
 * where the column's schema transforms (JSON, BIGINT), the other columns copied. That is what
 * Schema's decoding and encoding of the struct do, but for checking again what the column schemas
 * and the type system already guarantee: a message row encodes in ~2 µs instead of ~9, decodes in
 * ~5 µs instead of ~10, on the paths every message takes (insert, each transition, claim, reports).
 * `test/Rows.test.ts` checks that both agree on every table. Any other schema runs as Schema runs it.
 */
const codec = <A, I>(schema: Schema.Schema<A, I>): {
  readonly decode: (row: unknown) => Either.Either<A, ParseResult.ParseError>
  readonly encode: (value: A) => I
} => {
  const ast = schema.ast
  if (
    !(AST.isTransformation(ast) && AST.isTypeLiteralTransformation(ast.transformation) && AST.isTypeLiteral(ast.from))
  ) {
    return {
      decode: Schema.decodeUnknownEither(schema, { onExcessProperty: "ignore" }),
      encode: Schema.encodeSync(schema)
    }
  }
  const renames = ast.transformation.propertySignatureTransformations
  const fields = (ast.to as AST.TypeLiteral).propertySignatures.map(({ name }) => ({
    name,
    rename: renames.find((rename) => rename.to === name)
  }))
  const columns = ast.from.propertySignatures.map(({ name, type }) => ({
    name,
    rename: renames.find((rename) => rename.from === name),
    encode: AST.encodedAST(type) === type ? undefined : encodeColumn(type)
  }))
  const decodeColumns = Schema.decodeUnknownEither(
    Schema.make<Record<PropertyKey, unknown>, unknown, never>(ast.from),
    {
      onExcessProperty: "ignore"
    }
  )
  return {
    decode: (row) =>
      Either.map(decodeColumns(row), (decoded) => {
        const value: Record<PropertyKey, unknown> = {}
        for (const { name, rename } of fields) {
          if (rename === undefined) {
            if (has(decoded, name)) value[name] = decoded[name]
            continue
          }
          const field = rename.decode(has(decoded, rename.from) ? Option.some(decoded[rename.from]) : Option.none())
          if (Option.isSome(field)) value[name] = field.value
        }
        return value as A
      }),
    encode: (value) => {
      const fieldsOf = value as Record<PropertyKey, unknown>
      const row: Record<PropertyKey, unknown> = {}
      for (const { encode, name, rename } of columns) {
        let cell: unknown
        if (rename === undefined) {
          if (!has(fieldsOf, name)) continue
          cell = fieldsOf[name]
        } else {
          const column = rename.encode(has(fieldsOf, rename.to) ? Option.some(fieldsOf[rename.to]) : Option.none())
          if (Option.isNone(column)) continue
          cell = column.value
        }
        row[name] = encode === undefined ? cell : encode(cell)
      }
      return row as I
    }
  }
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
  const { decode: decodeRow, encode } = codec(schema)
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
    encode
  }
}
