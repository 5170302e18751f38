package expr

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// randomRef writes a reference the grammar accepts.
func randomRef(r *rand.Rand) string {
	names := []string{"id", "ticket_id", "items[0]", "items[]", "a-b", "x2"}
	name := func() string { return names[r.IntN(len(names))] }
	switch r.IntN(5) {
	case 0:
		return "${input." + name() + "." + name() + "}"
	case 1:
		return "${steps.s1.body." + name() + "}"
	case 2:
		return "${steps.s1.status}"
	case 3:
		return "${" + []string{"env", "config", "identity"}[r.IntN(3)] + ".NAME}"
	}
	return "${result." + name() + "}"
}

// TestParseRandomised: templates built from random text and valid
// references parse; the references come back in order and render as
// written; Whole holds exactly for a lone reference; the parts, joined,
// give the template back. Random bytes never panic.
func TestParseRandomised(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	texts := []string{"", "a", "/v1/", " - ", "工单", "$", "x}"}
	for i := range 3000 {
		var b strings.Builder
		var refs []string
		for range r.IntN(4) + 1 {
			if r.IntN(2) == 0 {
				b.WriteString(texts[r.IntN(len(texts))])
			} else {
				ref := randomRef(r)
				refs = append(refs, ref)
				b.WriteString(ref)
			}
		}
		text := b.String()
		e, err := Parse(text)
		if err != nil {
			t.Fatalf("seed %d case %d: Parse(%q): %v", seed, i, text, err)
		}
		if len(e.Refs) != len(refs) {
			t.Fatalf("seed %d case %d: Parse(%q) found %d references, want %d", seed, i, text, len(e.Refs), len(refs))
		}
		for k, ref := range e.Refs {
			if ref.String() != refs[k] {
				t.Fatalf("seed %d case %d: reference %d renders %q, want %q", seed, i, k, ref.String(), refs[k])
			}
		}
		if want := len(refs) == 1 && text == refs[0]; e.Whole != want {
			t.Fatalf("seed %d case %d: Parse(%q).Whole = %v, want %v", seed, i, text, e.Whole, want)
		}
		if got := joinParts(e); got != text {
			t.Fatalf("seed %d case %d: parts of %q join to %q", seed, i, text, got)
		}
		garbage := make([]byte, r.IntN(24))
		for j := range garbage {
			garbage[j] = "${}.[]abc 0-_"[r.IntN(13)]
		}
		_, _ = Parse(string(garbage))
	}
}

// joinParts renders the parts of e back into template text.
func joinParts(e Expr) string {
	var b strings.Builder
	ref := 0
	for _, p := range e.Parts {
		if p.Root == "" {
			b.WriteString(p.Text)
			continue
		}
		b.WriteString(e.Refs[ref].String())
		ref++
	}
	return b.String()
}

// TestLookupPath walks indexed and mapped paths.
func TestLookupPath(t *testing.T) {
	doc := map[string]any{"items": []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}, map[string]any{}}}
	if v, ok := LookupPath(doc, ParsePath("items[1].id")); !ok || v != "b" {
		t.Errorf("items[1].id = %v, %v", v, ok)
	}
	v, ok := LookupPath(doc, ParsePath("items[].id"))
	if got, _ := v.([]any); !ok || len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("items[].id = %v, %v", v, ok)
	}
	if _, ok := LookupPath(doc, ParsePath("items[9].id")); ok {
		t.Error("items[9].id found")
	}
}

// TestSoleInput: only an expression that is exactly one ${input.NAME}
// reference to a plain name passes an input through unchanged.
func TestSoleInput(t *testing.T) {
	for text, want := range map[string]string{
		"${input.pet_id}":      "pet_id",
		"${ input.pet_id }":    "pet_id", // Parse trims the reference
		"${input.user.name}":   "",
		"${input.tags[0]}":     "",
		"${input.tags[]}":      "",
		"id-${input.pet_id}":   "",
		"${input.a}${input.b}": "",
		"${steps.s.body.id}":   "",
		"${input.}":            "",
		"${input.pet_id":       "",
		"pet_id":               "",
	} {
		got, ok := SoleInput(text)
		if got != want || ok != (want != "") {
			t.Errorf("SoleInput(%q) = %q, %v; want %q", text, got, ok, want)
		}
	}
}
