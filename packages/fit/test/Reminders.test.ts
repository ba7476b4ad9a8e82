import { formats, type MessageFormat, withProtection } from "@ctxkit/core"
import { shiftContext } from "@ctxkit/fit"
import { deepFreeze } from "@ctxkit/testing"
import { assert, describe, it } from "@effect/vitest"

// Issue "right on real traffic", defect 4: a long agent session whose harness injects a system reminder
// every turn. The system prompt must stay; the reminders are the caller's to drop.
const count = (text: string): number => Math.ceil(text.length / 4)
const BUDGET = 420

interface Shapes<M> {
  readonly format: MessageFormat<M>
  readonly system: (text: string) => M
  readonly reminder: (text: string) => M
  readonly user: (text: string) => M
  readonly assistant: (text: string) => M
}

const langchain: Shapes<unknown> = {
  format: formats.langchain as MessageFormat<unknown>,
  system: (content) => ({ type: "system", content }),
  reminder: (content) => ({ type: "system", content, additional_kwargs: { ctxkit: { source: "reminder" } } }),
  user: (content) => ({ type: "human", content }),
  assistant: (content) => ({ type: "ai", content })
}

const aiSdk: Shapes<unknown> = {
  format: formats.aiSdk as MessageFormat<unknown>,
  system: (content) => ({ role: "system", content }),
  reminder: (content) => ({ role: "system", content, providerOptions: { ctxkit: { source: "reminder" } } }),
  user: (content) => ({ role: "user", content }),
  assistant: (content) => ({ role: "assistant", content })
}

/** System prompt, eight turns each followed by a ~60-token reminder, then the current request. */
const session = <M>(shapes: Shapes<M>, reminder: (text: string) => M): ReadonlyArray<M> => {
  const messages: Array<M> = [shapes.system("You are a careful coding agent. ".repeat(6))]
  for (let turn = 1; turn <= 8; turn++) {
    messages.push(shapes.user(`Step ${turn}: ${"change the parser ".repeat(4)}`))
    messages.push(reminder(`<system-reminder>Turn ${turn}: ${"keep the tests green; ".repeat(10)}</system-reminder>`))
    messages.push(shapes.assistant(`Done with step ${turn}. ${"The parser now handles it. ".repeat(3)}`))
  }
  messages.push(shapes.user("Now write the changelog entry."))
  return deepFreeze(messages)
}

for (const [name, shapes] of [["langchain", langchain], ["aiSdk", aiSdk]] as const) {
  describe(`system reminders in ${name}`, () => {
    it("a reminder marked source \"reminder\" can be dropped, so the request fits", () => {
      const messages = session(shapes, shapes.reminder)
      const result = shiftContext(messages, count, BUDGET, { format: shapes.format })
      assert.isTrue(result.fits)
      assert.isAtMost(result.tokens, BUDGET)
      // The system prompt and the current request are kept; the oldest reminders went first.
      assert.strictEqual(result.kept[0], messages[0])
      assert.strictEqual(result.kept[result.kept.length - 1], messages[messages.length - 1])
      assert.isTrue(result.excluded.some((x) => x.index === 2))
      assert.isFalse(shapes.format.isProtected(messages[2]!))
      assert.isTrue(shapes.format.isProtected(messages[0]!))
    })

    it("by default every system message is the system prompt, so the same session does not fit", () => {
      const messages = session(shapes, shapes.system)
      const result = shiftContext(messages, count, BUDGET, { format: shapes.format })
      assert.isFalse(result.fits)
    })

    it("withProtection makes the same choice without touching the messages", () => {
      const messages = session(shapes, shapes.system)
      const format = withProtection(shapes.format, (m) => m === messages[0])
      const result = shiftContext(messages, count, BUDGET, { format })
      assert.isTrue(result.fits)
      assert.isAtMost(result.tokens, BUDGET)
      assert.strictEqual(result.kept[0], messages[0])
      assert.strictEqual(result.kept[result.kept.length - 1], messages[messages.length - 1])
    })
  })
}
