//go:build !oa2mcp_nofastpath

package runtime

// fastPathCompiled: the fast paths are part of the binary (build with
// -tags oa2mcp_nofastpath to leave them out).
const fastPathCompiled = true
