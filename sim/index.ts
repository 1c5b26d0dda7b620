// The simulator's public surface: start one, script it, read what it received. See server.ts.
export { startSimulator } from "./server.js";
export type { Policy, PolicyName, SimFault, SimMarkup, SimOptions, SimReply, SimRequestRecord, SimStep, Simulator } from "./types.js";
export { POLICIES, resolvePolicy } from "./policies.js";
export { countTokens, tokenize } from "./tokens.js";
export { LLAMA_CPP_OVERFLOW, llamaCppOverflowBody, type OverflowShape, VLLM_OVERFLOW, vllmOverflowBody } from "./openai-compatible.js";
