/**
 * How a `dual` function of this package tells its data-first call from its data-last one (docs/architecture.md,
 * "One vocabulary"): the data-last call starts with what follows the conversation, so a call is data-first when
 * it has the full number of arguments or when its first argument is not what the data-last call starts with.
 * A conversation of the wrong type (`undefined`, an object) still reaches the data-first path and its answer.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"

/** For `f(messages, options?)`: the data-last call is `f()` or `f(options)`, an options object. */
export const optionsFirst = (args: IArguments): boolean =>
  args.length >= 2 || (args.length === 1 && !Predicate.isObject(args[0]))

/** For `f(messages, value, options?)` whose data-last call starts with a value of this kind (a number, a string). */
export const valueFirst = (isValue: (u: unknown) => boolean) => (args: IArguments): boolean =>
  args.length >= 3 || !isValue(args[0])
