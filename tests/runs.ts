/**
 * How many cases fast-check generates for a property: the one place the project sets it. `vitest.setup.ts`
 * makes `runs.standard` fast-check's global default (so a bare `fc.assert` uses it) and a test that needs
 * another count names a preset, by how costly one case is: `{ numRuns: runs.few }` for a case that replays a
 * whole pipeline, `{ numRuns: runs.many }` for a cheap one.
 *
 * `CTXKIT_PROPERTY_RUNS` sets `standard` (default 100) and every preset scales with it: a deep run is
 * `CTXKIT_PROPERTY_RUNS=1000 npm test`. Tests that check a misbehaving implementation IS caught need their
 * preset's full count: do not set it below the default.
 */
const given = Number(process.env["CTXKIT_PROPERTY_RUNS"])
const standard = Number.isInteger(given) && given > 0 ? given : 100

const scaled = (factor: number): number => Math.max(1, Math.round(standard * factor))

/** The run-count presets, from the most costly case (fewest runs) to the cheapest (most runs). */
export const runs = {
  /** 15 at the default: a case that runs every wire format through the heaviest pipeline. */
  fewest: scaled(0.15),
  /** 30 at the default: a case that runs a whole pipeline (plan, summarize, reduce; a plugin under the guard). */
  few: scaled(0.3),
  /** 60 at the default: a case that fits, compacts or governs a generated conversation more than once. */
  some: scaled(0.6),
  /** 100 at the default, fast-check's own default: one call on one generated conversation. */
  standard,
  /** 200 at the default: a cheap case whose interesting inputs are rare. */
  more: scaled(2),
  /** 300 at the default: a cheap case, or a law that must catch a misbehaving implementation. */
  many: scaled(3),
  /** 500 at the default: a case over one message, text or number. */
  most: scaled(5)
} as const
