package cli

import (
	"bufio"
	"bytes"
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
}

// findModule walks up from dir (which need not exist yet) to the nearest
// go.mod and derives the import path of dir from its module line.
func findModule(dir, fallbackName string) (moduleInfo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return moduleInfo{}, err
	}
	for cur := abs; ; cur = filepath.Dir(cur) {
		data, err := os.ReadFile(filepath.Join(cur, "go.mod"))
		if err == nil {
			mod := modulePath(data)
			rel, err := filepath.Rel(cur, abs)
			if err != nil {
				return moduleInfo{}, err
			}
			return moduleInfo{importPath: path.Join(mod, filepath.ToSlash(rel))}, nil
		}
		if filepath.Dir(cur) == cur {
			break
		}
	}
	return moduleInfo{importPath: fallbackName, newModule: fallbackName}, nil
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
