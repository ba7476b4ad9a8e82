/**
 * Why a class used on a hot path keeps one instance alive. V8 remembers the layout of a class's instances (the
 * fields its constructor adds) only while some instance is alive; optimized code that reads those fields depends
 * on it. A full garbage collection between two operations, once every instance of the last one is gone, drops
 * the layout and deoptimizes every function that read it, so the next operations run slower code until they are
 * optimized again. An object literal does not have this problem: its layout lives as long as the code that makes
 * it.
 */
const alive: Array<object> = []

/** Keeps `instance` (and so its class's layout) alive for the life of the process. */
export const keepLayout = (instance: object): void => {
  alive.push(instance)
}
