package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
)

// jsonObject is a JSON object that keeps its members' order: advertised
// schemas are rewritten (schema_advertise.go) and must list properties as
// the generator wrote them (path parameters first, then the rest).
type jsonObject struct {
	keys []string
	vals map[string]any
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]any{}} }

func (o *jsonObject) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set replaces k's value in place, or appends k.
func (o *jsonObject) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// clone copies o one level deep.
func (o *jsonObject) clone() *jsonObject {
	c := &jsonObject{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

// MarshalJSON writes the members in order.
func (o *jsonObject) MarshalJSON() ([]byte, error) {
	return appendOrdered(nil, o)
}

// appendOrdered appends v compactly: a *jsonObject's members in order
// (keys HTML-escaped, as json.Marshal writes them), everything else as
// marshalNoEscape writes it, through plainjson when it can.
func appendOrdered(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case *jsonObject:
		dst = append(dst, '{')
		for i, k := range x.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = plainjson.AppendString(dst, k, true)
			dst = append(dst, ':')
			var err error
			if dst, err = appendOrdered(dst, x.vals[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendOrdered(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	if out, ok := plainjson.Append(dst, v, false); ok {
		return out, nil
	}
	b, err := marshalNoEscape(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// marshalNoEscape encodes v without HTML escaping, as the schemas' own
// text has "<" and "&" literally.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// orderedObject builds a *jsonObject from its members in order, the last
// of duplicate keys winning in the first one's place, as set does.
func orderedObject(keys []string, vals []any) any {
	o := &jsonObject{keys: make([]string, 0, len(keys)), vals: make(map[string]any, len(keys))}
	for i, k := range keys {
		o.set(k, vals[i])
	}
	return o
}

// decodeOrdered decodes JSON text into *jsonObject, []any, json.Number,
// string, bool and nil values: through plainjson, and what it does not
// answer (a syntax error, deep nesting) through encoding/json, which
// says what is wrong.
func decodeOrdered(text string) (any, error) {
	if v, ok := plainjson.DecodeOrdered(text, orderedObject); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	v, err := decodeOrderedValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeOrderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newJSONObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}
