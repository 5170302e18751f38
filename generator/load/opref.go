package load

import (
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// opWrapperHeader turns an operation file into a one-operation document.
// kin-openapi silently ignores "$ref" on operations (DigitalOcean uses it
// for every operation), so each referenced operation file is decoded inside
// this wrapper at the file's own URL, which keeps the file's relative $refs
// working. Positions are read from the file itself (see positions3.go),
// never from the wrapper.
const opWrapperHeader = "openapi: 3.0.0\ninfo:\n  title: x\n  version: x\npaths:\n  /x:\n    get:\n"

// opWrapperIndent is how far the wrapped file's lines are indented.
const opWrapperIndent = 6

// resolveOperationRefs replaces every operation written as {$ref: file} by
// the operation that file holds, and records that file in l.opFiles. Walks
// paths in sorted order so that the loading order, and thus naming, is
// deterministic.
func (l *loader) resolveOperationRefs(kl *openapi3.Loader, t *openapi3.T) error {
	if t.Paths == nil {
		return nil
	}
	keys := t.Paths.InMatchingOrder()
	sort.Strings(keys)
	for _, key := range keys {
		item := t.Paths.Value(key)
		if item == nil {
			continue
		}
		for _, po := range l.itemOperations(item, nodeRef{}, false) {
			op, m := po.op, po.method
			if len(po.keys) > 1 {
				m = po.keys[1] // kin files custom methods under the key as written
			}
			ref, ok := op.Extensions["$ref"].(string)
			if !ok || op.OperationID != "" || op.Responses != nil && op.Responses.Len() > 0 {
				continue
			}
			resolved, err := l.loadOperationFile(kl, l.itemNode(key, item).file, ref)
			if err != nil {
				return err
			}
			if resolved != nil {
				item.SetOperation(m, resolved)
			}
		}
	}
	return nil
}

// itemNode is where the path item under paths[raw] is written: in the
// entry, or where its $ref points (resolved against the entry, where the
// paths object is).
func (l *loader) itemNode(raw string, item *openapi3.PathItem) nodeRef {
	entry := l.files.entryURL().String()
	if item.Ref == "" {
		return nodeRef{file: entry, path: []string{"paths", raw}}
	}
	_, frag, _ := strings.Cut(item.Ref, "#")
	if file := refTargetFile(entry, item.Ref); file != "" {
		entry = file
	}
	return nodeRef{file: entry, path: pointerTokens(frag)}
}

// loadOperationFile decodes the operation file ref (relative to the file
// with URL key holder) inside the wrapper document.
func (l *loader) loadOperationFile(kl *openapi3.Loader, holder, ref string) (*openapi3.Operation, error) {
	base, err := url.Parse(holder)
	if err != nil {
		return nil, nil
	}
	file, _, _ := strings.Cut(ref, "#")
	target, err := url.Parse(file)
	if err != nil || file == "" {
		return nil, nil
	}
	if !target.IsAbs() && !path.IsAbs(target.Path) {
		target = base.ResolveReference(target)
		if base.Scheme == "" {
			target = &url.URL{Path: path.Join(path.Dir(base.Path), file)}
		}
	}
	data, err := l.files.read(kl, target)
	if err != nil {
		return nil, err
	}
	doc, err := kl.LoadFromDataWithPath(wrapOperation(data), target)
	if err != nil {
		return nil, err
	}
	if doc.Paths == nil || doc.Paths.Value("/x") == nil || doc.Paths.Value("/x").Get == nil {
		return nil, nil
	}
	op := doc.Paths.Value("/x").Get
	l.opFiles[op] = target.String()
	return op, nil
}

// wrapOperation indents every line of an operation file under the header.
func wrapOperation(data []byte) []byte {
	pad := strings.Repeat(" ", opWrapperIndent)
	var b strings.Builder
	b.Grow(len(data) + len(data)/20 + len(opWrapperHeader))
	b.WriteString(opWrapperHeader)
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line != "" && line != "\n" {
			b.WriteString(pad)
		}
		b.WriteString(line)
	}
	return []byte(b.String())
}
