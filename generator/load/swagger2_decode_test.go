package load

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// TestSplitDecodeMatchesKin: every Swagger 2.0 document of the corpus
// decodes by members to the value kin-openapi's own decode gives, and the
// JSON ones kin decodes take the split, not the fallback.
func TestSplitDecodeMatchesKin(t *testing.T) {
	dir := testenv.CorpusDir(t)
	seen := 0
	for _, e := range testenv.Corpus() {
		if !strings.Contains(e.Path, "-2.0") {
			continue
		}
		seen++
		data, err := os.ReadFile(filepath.Join(dir, e.Path))
		if err != nil {
			t.Fatal(err)
		}
		if problem := splitProblem(data); problem != "" {
			t.Errorf("%s: %s", e.Path, problem)
		}
		var d2, kin openapi2.T
		kinErr := openapi2.UnmarshalFromData(data, &kin)
		if split, want := splitDecode(data, &d2), strings.HasSuffix(e.Path, ".json") && kinErr == nil; split != want {
			t.Errorf("%s: split %v, want %v (JSON that kin decodes: %v)", e.Path, split, want, kinErr)
		}
	}
	if seen < 4 {
		t.Fatalf("%d Swagger 2.0 documents in the corpus list, want at least 4", seen)
	}
}

// TestSplitDecodeOnRandomDocuments: for seeded random Swagger-shaped
// documents (repeated and case-folded keys, nulls, values of the wrong
// type, broken bytes, trailing data), decodeSwagger gives kin's value and
// kin's error. A failure prints the seed and the smallest document that
// still fails. Most documents must take the split, so the test cannot
// pass by falling back.
func TestSplitDecodeOnRandomDocuments(t *testing.T) {
	const runs = 3000
	split := 0
	for seed := range uint64(runs) {
		r := rand.New(rand.NewPCG(seed, 0x5ba6))
		doc := randomSwagger(r)
		text := doc.text(r.IntN(10) == 0, r)
		if problem := splitProblem(text); problem != "" {
			small := shrinkObject(doc, func(o *jsonObject) bool { return splitProblem(o.text(false, nil)) != "" })
			t.Fatalf("seed %d: %s\nsmallest failing document:\n%s", seed, problem, small.text(false, nil))
		}
		var d2 openapi2.T
		if splitDecode(text, &d2) {
			split++
		}
	}
	if split < runs/2 {
		t.Fatalf("%d of %d documents took the split, want at least half", split, runs)
	}
}

// splitProblem says how decodeSwagger differs from kin on data ("": not).
func splitProblem(data []byte) string {
	var want, got openapi2.T
	wantErr := openapi2.UnmarshalFromData(data, &want)
	gotErr := decodeSwagger(data, &got)
	switch {
	case (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error():
		return fmt.Sprintf("error %v, kin's %v", gotErr, wantErr)
	case !reflect.DeepEqual(want, got):
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		return fmt.Sprintf("value differs from kin's:\n got %.2000s\nwant %.2000s", a, b)
	}
	return ""
}

// jsonObject is a JSON object kept as written: members in order,
// repeated keys allowed; a value is JSON text or a nested object.
type jsonObject struct {
	members []jsonMember
}

type jsonMember struct {
	key  string
	text string      // the value's JSON text, when obj is nil
	obj  *jsonObject // a nested object
}

// text writes o as JSON; broken (with r) damages the bytes: a cut, a
// byte changed or added, or data after the object.
func (o *jsonObject) text(broken bool, r *rand.Rand) []byte {
	var b strings.Builder
	o.write(&b)
	out := []byte(b.String())
	if !broken {
		return out
	}
	i := r.IntN(len(out))
	switch r.IntN(4) {
	case 0:
		return out[:i]
	case 1:
		out[i] = "{}[]\":, x1\\"[r.IntN(11)]
		return out
	case 2:
		return append(out[:i:i], append([]byte{"{}[]\",:"[r.IntN(7)]}, out[i:]...)...)
	}
	return append(out, []string{" {}", "x", " \n", "\xef\xbb\xbf", " null"}[r.IntN(5)]...)
}

func (o *jsonObject) write(b *strings.Builder) {
	b.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteString(": ")
		if m.obj != nil {
			m.obj.write(b)
		} else {
			b.WriteString(m.text)
		}
	}
	b.WriteByte('}')
}

// shrinkObject drops members, at the top and one level down, while
// fails still holds.
func shrinkObject(o *jsonObject, fails func(*jsonObject) bool) *jsonObject {
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(o.members); i++ {
			try := &jsonObject{members: append(append([]jsonMember(nil), o.members[:i]...), o.members[i+1:]...)}
			if fails(try) {
				o, changed = try, true
				i--
				continue
			}
			if inner := o.members[i].obj; inner != nil {
				for j := 0; j < len(inner.members); j++ {
					smaller := &jsonObject{members: append(append([]jsonMember(nil), inner.members[:j]...), inner.members[j+1:]...)}
					ms := append([]jsonMember(nil), o.members...)
					ms[i].obj = smaller
					if try := (&jsonObject{members: ms}); fails(try) {
						o, inner, changed = try, smaller, true
						j--
					}
				}
			}
		}
	}
	return o
}

// randomSwagger builds a document of the top-level keys kin knows, with
// spellings and repeats encoding/json treats specially.
func randomSwagger(r *rand.Rand) *jsonObject {
	keys := []string{"swagger", "info", "paths", "definitions", "parameters", "responses", "host", "basePath",
		"tags", "securityDefinitions", "x-logo", "x-" + fmt.Sprint(r.IntN(3)), "unknown"}
	odd := []string{"Paths", "PATHS", "pathſ", "Definitions", "parameterſ", "Responses", "Swagger", "paths", "definitions"}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = keys[:2+r.IntN(len(keys)-1)]
	if r.IntN(12) == 0 { // a repeated key: encoding/json merges a repeated object
		keys = append(keys, keys[r.IntN(len(keys))])
	}
	doc := &jsonObject{}
	for _, key := range keys {
		if r.IntN(25) == 0 {
			key = odd[r.IntN(len(odd))]
		}
		doc.members = append(doc.members, topValue(r, key))
	}
	return doc
}

func topValue(r *rand.Rand, key string) jsonMember {
	if r.IntN(30) == 0 {
		return jsonMember{key: key, text: oddValue(r)}
	}
	switch strings.ToLower(key) {
	case "swagger":
		return jsonMember{key: key, text: `"2.0"`}
	case "info":
		return jsonMember{key: key, text: `{"title": "T", "version": "1", "x-a": [1, {"b": null}]}`}
	case "host", "basepath":
		return jsonMember{key: key, text: `"example.com"`}
	case "tags":
		return jsonMember{key: key, text: `[{"name": "a", "description": "A"}]`}
	case "paths":
		return jsonMember{key: key, obj: membersOf(r, func(i int) string { return fmt.Sprintf("/p%d/{id}", i) }, pathItem)}
	case "definitions":
		return jsonMember{key: key, obj: membersOf(r, func(i int) string { return fmt.Sprintf("D%d", i) }, schema)}
	case "parameters", "parameterſ":
		return jsonMember{key: key, obj: membersOf(r, func(i int) string { return fmt.Sprintf("q%d", i) }, parameter)}
	case "responses":
		return jsonMember{key: key, obj: membersOf(r, func(i int) string { return fmt.Sprintf("r%d", i) }, response)}
	case "securitydefinitions":
		return jsonMember{key: key, text: `{"k": {"type": "apiKey", "name": "X-Key", "in": "header"}}`}
	}
	return jsonMember{key: key, text: oddValue(r)}
}

// membersOf is a map of up to six members, names sometimes repeated.
func membersOf(r *rand.Rand, name func(int) string, value func(*rand.Rand) string) *jsonObject {
	o := &jsonObject{}
	for range r.IntN(7) {
		text := value(r)
		if r.IntN(40) == 0 {
			text = oddValue(r)
		}
		o.members = append(o.members, jsonMember{key: name(r.IntN(5)), text: text})
	}
	return o
}

// oddValue is a value of any JSON type; now and then one nested deeper
// than the split's scanner follows.
func oddValue(r *rand.Rand) string {
	if r.IntN(40) == 0 {
		return strings.Repeat("[", 600) + strings.Repeat("]", 600)
	}
	return []string{`null`, `{}`, `[]`, `"s"`, `1.5e3`, `true`, `{"x-y": {"z": [null, 2]}}`}[r.IntN(7)]
}

func pathItem(r *rand.Rand) string {
	var ops []string
	for _, m := range []string{"get", "post", "delete", "x-extra", "parameters", "$ref"} {
		if r.IntN(3) != 0 {
			continue
		}
		switch m {
		case "parameters":
			ops = append(ops, `"parameters": [`+parameter(r)+`]`)
		case "$ref":
			ops = append(ops, `"$ref": "#/paths/other"`)
		case "x-extra":
			ops = append(ops, `"x-extra": {"a": 1}`)
		default:
			ops = append(ops, fmt.Sprintf(`%q: {"operationId": "op%d", "parameters": [%s], "responses": {"200": %s}, "tags": ["a"]}`, m, r.IntN(9), parameter(r), response(r)))
		}
	}
	return "{" + strings.Join(ops, ", ") + "}"
}

func parameter(r *rand.Rand) string {
	return []string{`{"name": "id", "in": "path", "required": true, "type": "string"}`,
		`{"name": "b", "in": "body", "schema": ` + schema(r) + `}`,
		`{"$ref": "#/parameters/q1"}`, `{"name": "n", "in": "query", "type": "array", "items": {"type": "integer"}, "collectionFormat": "csv"}`}[r.IntN(4)]
}

func response(r *rand.Rand) string {
	return []string{`{"description": "ok", "schema": ` + schema(r) + `}`, `{"$ref": "#/responses/r0"}`, `{"description": "none", "x-r": true}`}[r.IntN(3)]
}

func schema(r *rand.Rand) string {
	return []string{`{"type": "object", "properties": {"a": {"type": "string", "format": "date"}}, "required": ["a"]}`,
		`{"$ref": "#/definitions/D1"}`, `{"type": "array", "items": {"$ref": "#/definitions/D0"}}`,
		`{"allOf": [{"$ref": "#/definitions/D2"}, {"x-nullable": true}]}`, `{"type": "integer", "minimum": 0, "enum": [1, 2]}`}[r.IntN(5)]
}
