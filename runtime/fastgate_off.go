//go:build oa2mcp_nofastpath

package runtime

// fastPathCompiled: built with -tags oa2mcp_nofastpath, the fast paths
// are unreachable and the linker leaves them out.
const fastPathCompiled = false
