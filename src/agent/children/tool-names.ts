// The names of the tools that start a child, in a file of their own: the kinds' table refuses them
// by name and the tools carry them, and neither may import the other.
export const DELEGATE_TOOL_NAME = "delegate_task";
export const REVIEW_TOOL_NAME = "review_changes";
export const ASK_TOOL_NAME = "ask";
