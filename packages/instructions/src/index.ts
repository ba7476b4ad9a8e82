/**
 * `@ctxkit/instructions`: AGENTS.md discovery, capping and assembly, lazy nested instructions, and Agent Skills
 * with progressive disclosure.
 *
 * @since 0.1.0
 */
export { AGENTS_INIT_TEMPLATE, initAgentsFile, type InitResult, updateAgentsTemplate } from "./AgentsInit.ts"
export {
  type AssembledFile,
  type AssembledInstructions,
  assembleInstructions,
  DEFAULT_MAX_BYTES,
  type ExplainedDirectory,
  explainInstructions,
  GLOBAL_LABEL,
  INSTRUCTION_FILE_NAMES,
  type InstructionFile,
  type InstructionKind,
  INSTRUCTIONS_HEADER,
  type InstructionsOptions,
  loadInstructions,
  MAX_BYTES_RANGE,
  truncationNotice
} from "./AgentsInstructions.ts"
export {
  InstructionsWriteFailed,
  InvalidInstructionsOption,
  OutsideWorkspace,
  SkillNotFound,
  SkillResourceDenied,
  UntrustedConfigFile
} from "./Errors.ts"
export {
  attachNestedInstructions,
  emptyNestedState,
  NESTED_READ_HEADER,
  NESTED_RECONSIDER_HEADER,
  type NestedAttachment,
  type NestedFile,
  type NestedState,
  planNestedAttachment,
  type TouchedPath
} from "./NestedInstructions.ts"
export {
  type LoadedSkill,
  loadSkill,
  searchSkills,
  SKILL_CATALOG_HEADER,
  SKILL_CATALOG_MAX_CHARS,
  SKILL_RESOURCE_MAX_BYTES,
  type SkillCatalog,
  skillCatalog,
  type SkillCatalogEntry,
  skillResource
} from "./SkillCatalog.ts"
export {
  discoverSkills,
  type PluginSkills,
  type Skill,
  SKILL_WALK_LIMITS,
  type SkillDiscovery,
  type SkillDiscoveryOptions,
  type SkillOverrides,
  type SkillRoot,
  skillRoots,
  type SkillSource,
  type SkillValidationReport,
  validateSkill
} from "./SkillDiscovery.ts"
export { readSkillOverrides, saveSkillOverrides, setSkillEnabled, type SkillToggle } from "./SkillOverrides.ts"
export {
  SKILL_DESCRIPTION_MAX,
  SKILL_FILE_MAX_BYTES,
  SKILL_NAME_MAX,
  type SkillDiagnostic,
  type SkillFileValidation,
  splitFrontmatter,
  validateSkillFile,
  validateSkillName
} from "./SkillValidation.ts"
