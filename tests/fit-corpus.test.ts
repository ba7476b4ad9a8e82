import { approximateCounter, conversationCost } from "@ctxkit/budget"
import { formats, type Message } from "@ctxkit/core"
import { type ContextStrategy, strategies } from "@ctxkit/fit"
import { deepFreeze, fitViolations } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"
import { corpusAbsent, loadCorpus } from "./corpus.ts"

const corpus = loadCorpus()
const builtins: ReadonlyArray<ContextStrategy> = Object.values(strategies)
const SHARES = [0.1, 0.25, 0.5, 0.9] as const
const count = (text: string): number => approximateCounter.count(text)

describe.skipIf(corpusAbsent)(
  "fitting real transcripts (../shared/corpus/normalized) at 10%, 25%, 50% and 90% of their size",
  () => {
    for (const conversation of corpus) {
      it(`${conversation.source}/${conversation.id}: every strategy keeps the laws`, () => {
        const messages = deepFreeze(conversation.messages as ReadonlyArray<Message>)
        const size = conversationCost(messages, { format: formats.canonical, counter: approximateCounter }).total
        const budgets = SHARES.map((share) => Math.max(1, Math.floor(size * share)))
        for (const strategy of builtins) {
          const truncating = strategy.id === "truncate"
          budgets.forEach((budget, k) => {
            for (const fitOptions of [{}, { compress: true }]) {
              const violations = fitViolations(strategy, messages, budget, {
                format: formats.canonical as never,
                countTokens: count,
                fitOptions,
                minimality: truncating,
                largerBudget: truncating ? budgets[k + 1] : undefined
              })
              assert.deepStrictEqual(violations, [], `${strategy.id} at ${SHARES[k]} (${budget} of ${size} tokens)`)
            }
          })
        }
        // Below its size something must go; the current request is never what goes.
        const fitted = strategies.truncate.fit(messages, count, budgets[3] ?? 1, { format: formats.canonical })
        assert.isAbove(fitted.excluded.length, 0)
        const requests = messages.filter((m) => m.role === "user" && m.summary !== true)
        const request = requests[requests.length - 1]
        if (request !== undefined) assert.include(fitted.kept, request)
      })
    }
  }
)
