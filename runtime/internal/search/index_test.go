package search

import (
	"math"
	"strings"
	"testing"
)

func TestSearchTerms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"listCoreV1NamespacedPod", "list cor v1 namespac pod"},
		{"Show me the pods in namespace prod", "show pod namespac prod"},
		{"chat.postMessage", "chat post messag"},
		{"HTTPResponse", "http respons"},
		{"/v1/payment_intents/{intent}", "v1 payment intent intent"},
		{"statuses status addresses ingresses policies caches cache", "status status address ingress policy cach cach"},
		{"databases database leases created creating deleted updates", "databas databas leas creat creat delet updat"},
		{"getting billing settings mapping aliases indices", "get bill set map alias index"},
		{"the 42 of a", ""},
	} {
		if got := strings.Join(SearchTerms(tc.in), " "); got != tc.want {
			t.Errorf("SearchTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	groups := SearchTermGroups("ReplicaSet for AllNamespaces")
	if len(groups) != 2 || strings.Join(groups[0], " ") != "replica set" || strings.Join(groups[1], " ") != "all namespac" {
		t.Errorf("SearchTermGroups = %q", groups)
	}
}

func TestSearchIndexRoundTrip(t *testing.T) {
	terms := []IndexTerm{
		{Term: "delete", IDF: 2.5, Postings: []Posting{{Op: 0, Weight: 1}, {Op: 40, Weight: 0.5}, {Op: 1999, Weight: 0.001}}},
		{Term: "pod", IDF: 0.126, Postings: []Posting{{Op: 7, Weight: 0.9}}},
		{Term: "v1", IDF: 0, Postings: []Posting{{Op: 1, Weight: 0.3}, {Op: 2, Weight: 0.6}}},
	}
	text, err := EncodeSearchIndex(2000, terms)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text, "`\"\\\r") || !strings.HasPrefix(text, "oa2mcp-index-v1 2000\n") {
		t.Errorf("encoded index needs escaping or lacks its header: %q", text)
	}
	idx, err := decodeSearchIndex(text, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.terms) != len(terms) {
		t.Fatalf("decoded %d terms, want %d", len(idx.terms), len(terms))
	}
	for _, want := range terms {
		got := idx.terms[want.Term]
		if math.Abs(got.idf-math.Round(want.IDF*100)/100) > 1e-9 || len(got.postings) != len(want.Postings) {
			t.Fatalf("%s: decoded %+v, want %+v", want.Term, got, want)
		}
		for i, p := range want.Postings {
			gp := got.postings[i]
			// Within half a step of 1/31, and never 0: every posting counts.
			wantW := max(p.Weight, 1.0/maxWeight)
			if int(gp.op) != p.Op || math.Abs(float64(gp.weight)-wantW) > 0.5/maxWeight+1e-6 {
				t.Errorf("%s posting %d: got %+v, want op %d weight %.3f", want.Term, i, gp, p.Op, p.Weight)
			}
		}
	}
}

func TestSearchIndexErrors(t *testing.T) {
	for _, tc := range []struct {
		what  string
		terms []IndexTerm
		want  string
	}{
		{"unsorted", []IndexTerm{{Term: "b"}, {Term: "a"}}, "not sorted"},
		{"duplicate", []IndexTerm{{Term: "a"}, {Term: "a"}}, "not sorted"},
		{"bad term", []IndexTerm{{Term: "Pod"}}, "lower-case"},
		{"space in term", []IndexTerm{{Term: "a b"}}, "lower-case"},
		{"op out of range", []IndexTerm{{Term: "a", Postings: []Posting{{Op: 3}}}}, "out of order or range"},
		{"ops out of order", []IndexTerm{{Term: "a", Postings: []Posting{{Op: 2}, {Op: 1}}}}, "out of order or range"},
		{"op repeated", []IndexTerm{{Term: "a", Postings: []Posting{{Op: 1}, {Op: 1}}}}, "out of order or range"},
	} {
		if _, err := EncodeSearchIndex(3, tc.terms); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.what, err, tc.want)
		}
	}
	for _, tc := range []struct{ what, text, want string }{
		{"header", "oa2mcp-index-v2 3\n", "header"},
		{"count", "oa2mcp-index-v1 4\n", "does not match 3"},
		{"no data", "oa2mcp-index-v1 3\npod\n", "no data"},
		{"bad digit", "oa2mcp-index-v1 3\npod A!\n", "bad character"},
		{"cut short", "oa2mcp-index-v1 3\npod Ag\n", "cut short"},
		{"weight missing", "oa2mcp-index-v1 3\npod AB\n", "cut short"},
		{"op out of range", "oa2mcp-index-v1 3\npod AEB\n", "bad posting"},
		{"weight zero", "oa2mcp-index-v1 3\npod ABA\n", "bad posting"},
	} {
		if _, err := decodeSearchIndex(tc.text, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.what, err, tc.want)
		}
	}
}
