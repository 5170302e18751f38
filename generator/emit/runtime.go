package emit

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// runtimeFS holds the runtime package's sources. Its non-test files are
// copied into every generated package; see generator/emit/runtime.
//
//go:embed runtime/*.go
var runtimeFS embed.FS

// addRuntime copies the runtime into files: the comments above the
// package clause (the runtime's own package doc) are dropped, the package
// clause renamed, and the standard header prepended.
func addRuntime(srv *ir.Server, files map[string][]byte) error {
	names, err := fs.Glob(runtimeFS, "runtime/*.go")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := runtimeFS.ReadFile(name)
		if err != nil {
			return err
		}
		if hasBuildTag(src, metricsTag) && !srv.Metrics {
			continue
		}
		if hasBuildTag(src, redisTag) && !srv.Redis {
			continue
		}
		out, err := rewritePackage(src, srv)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files["oa2mcp_runtime_"+strings.TrimPrefix(name, "runtime/")] = out
	}
	return nil
}

// metricsTag marks runtime files copied only when ir.Server.Metrics is
// set. The copy loses the tag with the rest of the header (see
// rewritePackage), so the generated server builds it unconditionally.
const metricsTag = "oa2mcp_prometheus"

// redisTag marks the Redis handle store, copied only when ir.Server.Redis
// is set (handle_store: redis in the override file).
const redisTag = "oa2mcp_redis"

// hasBuildTag reports whether src's //go:build line, above the package
// clause, names tag.
func hasBuildTag(src []byte, tag string) bool {
	head := src
	if i := bytes.Index(src, []byte("\npackage ")); i >= 0 {
		head = src[:i]
	}
	for _, line := range strings.Split(string(head), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "//go:build ") {
			continue
		}
		for _, f := range strings.FieldsFunc(line[len("//go:build "):], func(r rune) bool {
			return !(r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) {
			if f == tag {
				return true
			}
		}
	}
	return false
}

func rewritePackage(src []byte, srv *ir.Server) ([]byte, error) {
	const clause = "\npackage rt\n"
	i := bytes.Index(append([]byte("\n"), src...), []byte(clause))
	if i < 0 {
		return nil, fmt.Errorf("no %q clause", strings.TrimSpace(clause))
	}
	var b bytes.Buffer
	b.WriteString(Header + "\n")
	if srv.Source != "" {
		b.WriteString("// source: " + srv.Source + "\n")
	}
	b.WriteString("\npackage " + srv.Package + "\n")
	b.Write(src[i+len(clause)-1:])
	return b.Bytes(), nil
}
