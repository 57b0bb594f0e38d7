// The usage text of `beads-recovery mcp`, apart from the server so the help does not load the MCP SDK.
export const MCP_USAGE = `  beads-recovery mcp [--cwd DIR]

Serves the recovery context and checkpoints over MCP on stdin/stdout for the beads project that
contains DIR (default: CLAUDE_PROJECT_DIR when set, else the current folder).`;
