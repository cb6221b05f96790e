/**
 * Help text fitted to a width. @effect/cli prints each line of its help as long as its content (a
 * command's usage, an option's description) and pads its list of commands to the longest usage
 * there, so a command with many options pushes every line of the list past any terminal's width.
 *
 * @since 0.1.0
 */

const colours = /\x1b\[[0-9;]*m/g

/** `line` as it shows: without its colour codes. */
const visible = (line: string): string => line.replace(colours, "")

/** Where a list entry's usage ends and its description begins: two spaces or more. */
const listEntry = /^ {2}- (.*?)(?: {2,}(.*))?$/

/** `text`'s words: split at spaces, but an optional part of a usage (`[--market MARKET]`) is one. */
const words = (text: string): Array<string> => {
  const found: Array<string> = []
  let depth = 0
  for (const part of text.split(" ").filter((part) => part !== "")) {
    if (depth > 0) found[found.length - 1] += ` ${part}`
    else found.push(part)
    for (const char of part) depth = Math.max(0, depth + (char === "[" ? 1 : char === "]" ? -1 : 0))
  }
  return found
}

/**
 * `text` (one line, no colours) broken at spaces into lines of at most `width` columns where its
 * words allow: the first led by `first`, the others by `rest`.
 */
const wrap = (text: string, width: number, first: string, rest: string): Array<string> => {
  const lines: Array<string> = []
  let line = first
  let empty = true
  for (const word of words(text)) {
    if (empty) line += word
    else if (line.length + 1 + word.length <= width) line += ` ${word}`
    else {
      lines.push(line)
      line = rest + word
    }
    empty = false
  }
  lines.push(line)
  return lines
}

/**
 * `text` fitted to `width` columns:
 *
 * - a line that fits is kept as it is, colours and all, but for trailing spaces;
 * - a longer line is wrapped at spaces, without its colours, its continuation lines indented as it
 *   is (a usage line, `$ …`, four columns more);
 * - when an entry of the list of commands (`  - usage  description`) does not fit, every entry
 *   shows its usage (continued eight columns in) and under it its description, where the usage
 *   begins.
 *
 * No line is wider than `width` unless a single word is.
 *
 * @since 0.1.0
 * @category formatting
 */
export const fit = (text: string, width: number): string => {
  const lines = text.split("\n")
  const entries = lines.map((line) => listEntry.exec(visible(line).trimEnd()))
  const stacked = lines.some((line, i) => entries[i] !== null && visible(line).trimEnd().length > width)
  return lines.flatMap((line, i) => {
    const entry = entries[i]
    if (stacked && entry !== null && entry !== undefined) {
      const [, usage = "", description] = entry
      return [
        ...wrap(usage, width, "  - ", "        "),
        ...(description === undefined ? [] : wrap(description, width, "    ", "    "))
      ]
    }
    const shown = visible(line).trimEnd()
    if (shown.length <= width) return [line.trimEnd()]
    const indent = /^ */.exec(shown)![0]
    return wrap(shown.trimStart(), width, indent, indent + (shown.trimStart().startsWith("$ ") ? "    " : ""))
  }).join("\n")
}
