/** Where the assistant tools are served (operator.md). */
export const MCP_PATH = '/mcp';
