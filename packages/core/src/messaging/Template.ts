/**
 * Placeholders in a body (CONTRACT §13): `{{name}}`, the name 1 or more ASCII letters, digits or
 * `_`, filled from a message's `variables`. Anything else in braces is text: `{`, `}`, `{{ name }}`
 * (spaces) and `{{}}` stay as written. A body is filled in one pass, so a variable's value is never
 * read for placeholders itself.
 *
 * @since 0.3.0
 */

const placeholder = /\{\{([A-Za-z0-9_]+)\}\}/g

/** The distinct placeholder names of `body`, in the order they first appear. @since 0.3.0 @category parsing */
export const names = (body: string): ReadonlyArray<string> => [
  ...new Set(Array.from(body.matchAll(placeholder), (match) => match[1]!))
]

/** What filling a body gave: the filled body, or the names of the placeholders without a variable. @since 0.3.0 @category models */
export type Filled =
  | { readonly _tag: "Filled"; readonly body: string }
  | { readonly _tag: "Missing"; readonly names: ReadonlyArray<string> }

/**
 * `body` with each placeholder replaced by its variable's value, in one pass; the names without a
 * variable (in order of first appearance) when any is missing. A body without placeholders is
 * itself, whatever `variables` holds.
 *
 * @since 0.3.0
 * @category filling
 */
export const fill = (body: string, variables: Readonly<Record<string, string>>): Filled => {
  const missing = names(body).filter((name) => !Object.hasOwn(variables, name))
  if (missing.length > 0) return { _tag: "Missing", names: missing }
  return { _tag: "Filled", body: body.replace(placeholder, (_, name: string) => variables[name]!) }
}
