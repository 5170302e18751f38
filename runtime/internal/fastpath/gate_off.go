//go:build oa2mcp_nofastpath

package fastpath

// Compiled: built with -tags oa2mcp_nofastpath, the fast paths
// are unreachable and the linker leaves them out.
const Compiled = false
