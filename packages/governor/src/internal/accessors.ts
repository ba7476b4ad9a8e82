/**
 * Accessor builders shared by the ready-made tool mappings.
 *
 * @internal
 */
import type { Accessor, ToolArguments, ToolContext } from "../ToolKinds.ts"
import { intArg, intWord, stringArg } from "./args.ts"
import { shellWords } from "./shell.ts"

/** The first of `keys` holding a non-empty string. */
export const field = (...keys: ReadonlyArray<string>): Accessor<string> => (args) => stringArg(args, ...keys)

/** The first of `keys` holding a non-negative integer. */
export const intField = (...keys: ReadonlyArray<string>): Accessor<number> => (args) => intArg(args, ...keys)

/** The current file of the context (SWE-agent's `edit`, `goto`). */
export const currentFile: Accessor<string> = (_args, context) => context.currentFile

/**
 * The words of a SWE-agent style command in `args.command` (`open src/a.py 40`), without the command name
 * itself when it repeats the tool name or `name`.
 */
export const commandOperands = (args: ToolArguments, context: ToolContext, name: string): ReadonlyArray<string> => {
  const command = stringArg(args, "command")
  if (command === undefined) return []
  const { words } = shellWords(command)
  return words[0] === name || words[0] === context.tool ? words.slice(1) : words
}

/** The `index`-th operand of the command as an integer. */
export const operandInt = (
  args: ToolArguments,
  context: ToolContext,
  name: string,
  index: number
): number | undefined => intWord(commandOperands(args, context, name)[index])

/** A Claude Code `TaskOutput` result is empty when its `<output>` element is blank (without one: blank text). */
export const taskOutputIsEmpty = (text: string): boolean => {
  const open = text.indexOf("<output>")
  if (open < 0) return text.trim() === ""
  const close = text.indexOf("</output>", open)
  return text.slice(open + "<output>".length, close < 0 ? text.length : close).trim() === ""
}

/** The paths a listing call names itself (its directory), from the first of `keys`. */
export const namedPaths = (...keys: ReadonlyArray<string>): Accessor<ReadonlyArray<string>> => (args) => {
  const path = stringArg(args, ...keys)
  return path === undefined ? undefined : [path]
}
