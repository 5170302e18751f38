package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// moduleInfo says where the output folder sits among Go modules.
type moduleInfo struct {
	// importPath is the Go import path of the output folder.
	importPath string
	// newModule is set when the folder is in no module: a go.mod with
	// this module path will be generated.
	newModule string
	// replacesRuntime: the existing go.mod already replaces the runtime
	// module (oa2mcp wrote it with --runtime-dir, or its owner did).
	replacesRuntime bool
}

// findModule walks up from dir (which need not exist yet) to the nearest
// go.mod and derives the import path of dir from its module line.
func findModule(dir, fallbackName string) (moduleInfo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return moduleInfo{}, err
	}
	for cur := abs; ; cur = filepath.Dir(cur) {
		gomod := filepath.Join(cur, "go.mod")
		data, err := os.ReadFile(gomod)
		if err == nil {
			mod := modulePath(data)
			if mod == "" {
				return moduleInfo{}, fmt.Errorf("%s: no module line, so the output's import path is unknown; add \"module PATH\" at its top", gomod)
			}
			rel, err := filepath.Rel(cur, abs)
			if err != nil {
				return moduleInfo{}, err
			}
			return moduleInfo{importPath: path.Join(mod, filepath.ToSlash(rel)), replacesRuntime: replacesRuntime(data)}, nil
		}
		if filepath.Dir(cur) == cur {
			break
		}
	}
	return moduleInfo{importPath: fallbackName, newModule: fallbackName}, nil
}

// replacesRuntime reports a replace directive for the runtime module in
// go.mod contents, in either the one-line or the block form.
func replacesRuntime(gomod []byte) bool {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "replace" {
			f = f[1:]
		}
		if len(f) >= 3 && f[0] == "github.com/oa2mcp/oa2mcp/runtime" && (f[1] == "=>" || len(f) > 3 && f[2] == "=>") {
			return true
		}
	}
	return false
}

// modulePath reads the module path from go.mod contents.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// modulePathElem makes name a valid module path element: lower case
// ASCII letters, digits, "-", "." and "_", neither starting nor ending in
// "." or "-"; "mcpserver" when nothing is left.
func modulePathElem(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	elem := strings.Trim(b.String(), ".-")
	if elem == "" {
		return "mcpserver"
	}
	return elem
}
