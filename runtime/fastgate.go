package runtime

import (
	"runtime/debug"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
)

// The fast paths (runtime/internal/fastpath) copy what go-sdk answers
// for the versions their differential tests cover; the gate
// (fastpath.OffReason) keeps them off for any other go-sdk. What users
// touch stays here: Options.NoFastPath, $PREFIX_FAST_PATH and the
// build tag oa2mcp_nofastpath.

// fastPathEnv is the variable that turns the fast paths off.
func fastPathEnv(spec *ServerDef) string { return envPrefix(spec) + "_FAST_PATH" }

// gateFastPath decides, at NewServer, whether s takes the fast paths,
// and says so in the log when it does not for a reason the operator
// may not expect.
func (s *Server) gateFastPath(opts *Options) error {
	info, _ := debug.ReadBuildInfo()
	env := opts.Getenv(fastPathEnv(s.spec))
	why, err := fastpath.OffReason(opts.NoFastPath, fastPathEnv(s.spec), env, fastpath.LinkedSDKVersion(info))
	if err != nil {
		return err
	}
	s.fastPathOff = why != ""
	if why != "" && !opts.NoFastPath && fastpath.Compiled && !strings.EqualFold(env, "off") {
		// the go-sdk version: what an upgrade of go-sdk alone changed
		s.logger.Info("tool calls go through go-sdk, without the fast path", "reason", why)
	}
	return nil
}

// fastPathOn reports whether s serves calls on the fast paths; a
// constant false when they are compiled out, so the compiler drops them.
func (s *Server) fastPathOn() bool { return fastpath.Compiled && !s.fastPathOff }
