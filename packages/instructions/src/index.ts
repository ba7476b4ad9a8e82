/**
 * `@ctxkit/instructions`: AGENTS.md discovery, capping and assembly, lazy nested instructions, and Agent Skills
 * with progressive disclosure.
 *
 * @since 0.1.0
 */

export { initAgentsFile, updateAgentsTemplate } from "./AgentsInit.ts"
export {
  assembleInstructions,
  explainInstructions,
  type InstructionFile,
  loadInstructions
} from "./AgentsInstructions.ts"
export {
  InstructionsWriteFailed,
  InvalidInstructionsOption,
  OutsideWorkspace,
  SkillNotFound,
  SkillResourceDenied,
  UntrustedConfigFile
} from "./Errors.ts"
export { attachNestedInstructions, emptyNestedState, planNestedAttachment } from "./NestedInstructions.ts"
export { loadSkill, searchSkills, type SkillCatalog, skillCatalog, skillResource } from "./SkillCatalog.ts"
export { discoverSkills, type Skill, validateSkill } from "./SkillDiscovery.ts"
export { readSkillOverrides, saveSkillOverrides, setSkillEnabled } from "./SkillOverrides.ts"
export { validateSkillFile } from "./SkillValidation.ts"
