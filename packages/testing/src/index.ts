/**
 * `@ctxkit/testing`: fast-check arbitraries of agent conversations in every wire format, and the ctxkit
 * laws as reusable property checks — for ctxkit's own tests and for yours.
 *
 * The option and result types the checks take live at their module paths (`@ctxkit/testing/Scenario`,
 * `@ctxkit/testing/FitLaws`, `@ctxkit/testing/CompactionLaws`, `@ctxkit/testing/Laws`,
 * `@ctxkit/testing/Arbitraries`).
 *
 * @since 0.1.0
 */

export { conversation, groupsFromKeys, scenario, text, withDoubledUserTurns } from "./Arbitraries.ts"
export { keepTurnsViolations, planViolations, reductionViolations } from "./CompactionLaws.ts"
export { fitLaws, fitViolations, type StrategyUnderTest } from "./FitLaws.ts"
export { fidelityViolations, formatFidelity } from "./FormatFidelity.ts"
export {
  deepEqual,
  deepFreeze,
  identityViolations,
  pairViolations,
  partitionViolations,
  purityViolations,
  selectionLaws
} from "./Laws.ts"
export { type FormatName, formatNames, formatOf, render } from "./Render.ts"
export type { Scenario } from "./Scenario.ts"
