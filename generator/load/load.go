package load

import (
	"context"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/oa2mcp/oa2mcp/generator/diag"
)

// Options control how Load reads a spec.
type Options struct {
	// AllowRemoteHosts lists hosts whose http(s) $refs may be fetched;
	// empty means remote refs are never fetched and each one is an error
	// with its position.
	AllowRemoteHosts []string
}

// maxRefRepairs bounds how many times Load reloads a spec after blanking
// broken $refs, so that every dangling reference is reported in one run
// without letting a pathological spec loop for long.
const maxRefRepairs = 25

// Load reads the OpenAPI 3.x or Swagger 2.0 document at path (YAML or JSON,
// possibly split over several files) and converts it to a Document.
//
// The returned list holds every problem found. When it holds an error the
// Document is nil; warnings may accompany a good Document. Load never
// panics: a panic inside the OpenAPI library is reported as an error naming
// the file.
func Load(ctx context.Context, path string, opts Options) (doc *Document, probs diag.List) {
	defer func() {
		if r := recover(); r != nil {
			doc = nil
			probs = append(probs, diag.Problem{
				Pos:      diag.Position{File: path},
				Severity: diag.Error,
				Message:  fmt.Sprintf("internal error while loading the spec: %v", r),
				Fix:      "please report this as an oa2mcp bug, with the spec attached",
			})
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	l := newLoader(ctx, path, opts)
	doc = l.run()
	l.probs.Sort()
	if l.probs.HasErrors() {
		return nil, l.probs
	}
	return doc, l.probs
}

// loader holds the state of one Load call; nothing is shared between calls.
type loader struct {
	ctx   context.Context
	path  string // entry file as given by the caller
	opts  Options
	probs diag.List
	files *fileSet
	// version is the spec's own version string; swagger is true for 2.0.
	version string
	swagger bool
	// v2pos holds positions of Swagger 2.0 operations and parameters,
	// which openapi2 does not track; see positions.go.
	v2pos map[v2Key]Position
	// opFiles maps each operation read from an operation $ref to its file
	// (URL key); see opref.go.
	opFiles map[*openapi3.Operation]string
	// posReqs are the positions the conversion waits for, pending the
	// warnings placed at some of them; see positions3.go.
	posReqs []posRequest
	pending []*pendingWarning
}

func newLoader(ctx context.Context, path string, opts Options) *loader {
	return &loader{ctx: ctx, path: path, opts: opts, files: newFileSet(ctx, path, opts)}
}

// run does the whole job; problems go to l.probs.
func (l *loader) run() *Document {
	data, err := l.files.readEntry()
	if err != nil {
		l.probs.Errorf(diag.Position{File: l.path}, "check the file name and that it is readable", "cannot read the spec: %v", unwrapPathErr(err))
		return nil
	}
	info, ok := l.sniffVersion(data)
	if !ok {
		return nil
	}
	l.version = info.version
	l.swagger = info.swagger
	l.installFixups(data)
	t := l.loadWithRepairs()
	if t == nil || l.probs.HasErrors() {
		return nil
	}
	return l.convert(t)
}

// loadWithRepairs loads the spec with kin-openapi. When a $ref cannot be
// resolved, the offending $ref is reported, blanked in the in-memory copy of
// its file (keeping line numbers) and the load is retried, so that the user
// sees all broken references at once.
func (l *loader) loadWithRepairs() *openapi3.T {
	for range maxRefRepairs {
		if err := l.ctx.Err(); err != nil {
			l.probs.Errorf(diag.Position{File: l.path}, "", "loading cancelled: %v", err)
			return nil
		}
		t, err := l.loadOnce()
		if err == nil {
			if l.files.failed {
				return nil
			}
			return t
		}
		if !l.repair(err) {
			return nil
		}
	}
	l.probs.Errorf(diag.Position{File: l.path}, "fix the references above and run again", "too many broken references; stopped looking")
	return nil
}

// loadOnce runs one kin-openapi load of the entry file with a fresh kin
// loader over the shared (possibly repaired) file contents.
func (l *loader) loadOnce() (*openapi3.T, error) {
	l.files.resetRun()
	l.opFiles = map[*openapi3.Operation]string{}
	kl := l.files.kinLoader()
	if l.swagger {
		return l.loadSwagger(kl)
	}
	t, err := kl.LoadFromDataWithPath(l.files.entryData(), l.files.entryURL())
	if err != nil {
		return nil, err
	}
	if err := l.resolveOperationRefs(kl, t); err != nil {
		return nil, err
	}
	return t, nil
}
