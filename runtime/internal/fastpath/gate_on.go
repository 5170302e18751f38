//go:build !oa2mcp_nofastpath

package fastpath

// Compiled: the fast paths are part of the binary (build with
// -tags oa2mcp_nofastpath to leave them out).
const Compiled = true
