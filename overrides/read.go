package overrides

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/internal/strictyaml"
)

// positions maps key paths such as "tools[0].operation" to positions.
type positions map[string]diag.Position

// ReadFile reads and decodes an override file. Problems carry the file's
// line and column; the file is nil when any problem is an error.
func ReadFile(path string) (*File, diag.List) {
	data, err := os.ReadFile(path)
	if err != nil {
		// The position names the file already; say only why.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		var l diag.List
		l.Errorf(diag.Position{File: path}, "check the --overrides path", "cannot read the override file: %v", err)
		return nil, l
	}
	return Decode(path, data)
}

// Decode decodes override file contents read from path. With errors, the
// file is still returned when its YAML could be read: it holds everything
// but the offending keys, so a caller can check the rest and report every
// problem at once; nothing may be generated from it. It is nil only when
// the YAML does not parse or the version is not 1.
func Decode(path string, data []byte) (*File, diag.List) {
	var f File
	problems, refused := strictyaml.DecodeRefusing(path, data, &f)
	f.refused = refused
	if refused == nil {
		return nil, problems // the YAML does not parse
	}
	f.Path = path
	f.pos = strictyaml.Positions(path, data)
	if f.Version != 1 {
		problems.Errorf(f.Pos("version"), `start the file with "version: 1"`, "unsupported override file version %d", f.Version)
		return nil, problems
	}
	problems = append(problems, f.checkShape()...)
	return &f, problems
}

// FromExtensions builds overrides from x-oa2mcp-* extensions of a spec the
// team owns: x-oa2mcp-server, x-oa2mcp-select, x-oa2mcp-tools and
// x-oa2mcp-config at the document root hold the same settings as the
// file's server, select, tools and config keys. It returns nil when the
// spec has none.
func FromExtensions(specFile string, ext map[string]any, pos diag.Position) (*File, diag.List) {
	var problems diag.List
	if len(ext) == 0 {
		return nil, nil
	}
	known := map[string]bool{"server": true, "select": true, "tools": true, "config": true, "handles": true}
	doc := map[string]any{"version": 1}
	for k, v := range ext {
		if !known[k] {
			continue
		}
		doc[k] = v
	}
	if len(doc) == 1 {
		return nil, nil
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		problems.Errorf(pos, "fix the x-oa2mcp-* extensions", "x-oa2mcp extensions cannot be read: %v", err)
		return nil, problems
	}
	f, more := Decode(specFile+" (x-oa2mcp-*)", raw)
	return f, append(problems, more...)
}

// Pos returns the position of a key path, or of its nearest ancestor
// that has one, or the file itself.
func (f *File) Pos(path string) diag.Position {
	for p := path; p != ""; p = parentPath(p) {
		if pos, ok := f.pos[p]; ok {
			return pos
		}
	}
	return diag.Position{File: f.Path}
}

func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

// toolPath is the key path of the i-th tool.
func toolPath(i int) string { return fmt.Sprintf("tools[%d]", i) }
