package runtime

import (
	"slices"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// TestLookupToolsSameThing: a not-found hint names only lookup tools
// about the thing that was not found.
func TestLookupToolsSameThing(t *testing.T) {
	s := &Server{spec: &ServerDef{Tools: []*Tool{
		{Name: "clinic_find_clinicians", ReadOnly: true},
		{Name: "clinic_list_appointments", ReadOnly: true},
		{Name: "clinic_book", ReadOnly: false},
	}}}
	bt := &boundTool{spec: &Tool{Name: "clinic_appointment"}}
	for _, c := range []struct {
		inputs []string
		want   []string
	}{
		{[]string{"appointment_id"}, []string{"clinic_list_appointments"}},
		{[]string{"clinicianId"}, []string{"clinic_find_clinicians"}},
		{[]string{"id"}, nil},
		{[]string{"slot_id"}, nil},
	} {
		if got := s.lookupTools(bt, c.inputs); !slices.Equal(got, c.want) {
			t.Errorf("lookupTools(%v) = %v, want %v", c.inputs, got, c.want)
		}
	}
}

// TestSuggest: the one "did you mean" rule suggests likely typos only.
func TestSuggest(t *testing.T) {
	for _, c := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"titel", []string{"mine", "title"}, "title"},
		{"titel", []string{"mine", "book"}, ""},
		{"ofset", []string{"limit", "offset"}, "offset"},
		{"X-Member-Idd", []string{"X-Member-Id"}, "X-Member-Id"},
		{"Status", []string{"status"}, "status"},
		{"ab", []string{"xy"}, ""},
	} {
		if got := textkit.Suggest(c.word, c.cands); got != c.want {
			t.Errorf("Suggest(%q, %v) = %q, want %q", c.word, c.cands, got, c.want)
		}
	}
}
