/**
 * What core reports instead of failing, in one module as every ctxkit package has it: the diagnostics of
 * `toolGroups` (an orphan result or approval response, a dangling call, a reused id, a call awaiting execution,
 * an input that is not a conversation), which `repairPairs` and every strategy also report. Each has a stable
 * `_tag` and a `message` that names the problem and the fix. What `repairPairs` changed is its result, not a
 * diagnostic: `RepairChange` in `@ctxkit/core/RepairPairs`.
 *
 * @since 0.1.0
 */
// The classes are still declared beside `toolGroups` (ToolGroups.ts) while that file is being reworked for
// speed on another branch; this module is where they are imported from, and they move here unchanged after.
export {
  AwaitingExecution,
  DanglingCall,
  type GroupDiagnostic,
  NotAConversation,
  OrphanApprovalResponse,
  OrphanResult,
  ReusedCallId
} from "./ToolGroups.ts"
