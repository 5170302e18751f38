package discover

import (
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// weightOf returns the weight of term for each document of docs.
func weightOf(t *testing.T, docs []Doc, term string) []float64 {
	t.Helper()
	bags := make([]*bag, len(docs))
	for i, d := range docs {
		bags[i] = docBag(d, handVocabulary())
	}
	out := make([]float64, len(docs))
	for _, it := range weigh(bags) {
		if it.Term == term {
			for _, p := range it.Postings {
				out[p.Op] = p.Weight
			}
		}
	}
	return out
}

func TestFieldsWeighDifferently(t *testing.T) {
	docs := []Doc{
		{Name: "list_pods", OperationID: "listPods", Method: "GET", Path: "/pods"},
		{Name: "get_node", OperationID: "getNode", Method: "GET", Path: "/nodes/{name}", Summary: "Read a node and its pods"},
		{Name: "get_node_status", OperationID: "getNodeStatus", Method: "GET", Path: "/nodes/{name}/status", Description: "Shows the status of a node, including the pods it runs and much more text besides"},
		{Name: "watch_pods", OperationID: "watchPods", Method: "GET", Path: "/watch/pods", Deprecated: true},
	}
	w := weightOf(t, docs, "pod")
	if !(w[0] > w[1] && w[1] > w[2] && w[2] > 0) {
		t.Errorf("pod: name %.3f, summary %.3f, description %.3f: want name > summary > description > 0", w[0], w[1], w[2])
	}
	if !(w[3] > 0 && w[3] < w[0]*0.6) {
		t.Errorf("pod: deprecated %.3f vs %.3f: want about half", w[3], w[0])
	}
	if l := weightOf(t, docs, "list"); !(l[0] > l[1] && l[1] == 0) {
		t.Errorf("list: %v: the collection GET lists, the item GET does not", l)
	}
	if c := weightOf(t, docs, "nodstatus"); !(c[2] > 0 && c[1] == 0) {
		t.Errorf("compound nodstatus (node status, stemmed): %v", c)
	}
}

func TestShortenedNameIgnored(t *testing.T) {
	long := "delete_admissionregistration_v1_collection_mutating_web_335c7a80"
	docs := []Doc{{Name: long, OperationID: "deleteAdmissionregistrationV1CollectionMutatingWebhookConfiguration", Method: "DELETE", Path: "/x"}, {Name: "get_web", OperationID: "getWeb", Method: "GET", Path: "/web"}}
	if w := weightOf(t, docs, "web"); w[0] != 0 {
		t.Errorf("the cut word of a shortened name is indexed: %v", w)
	}
	if w := weightOf(t, docs, "webhook"); w[0] == 0 {
		t.Errorf("the operationId's words are not indexed: %v", w)
	}
}

func TestIndexEncodes(t *testing.T) {
	idx, err := Index([]Doc{{Name: "list_pods", OperationID: "listPods", Method: "GET", Path: "/pods", Summary: "List pods."}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := oa2mcpimpl.NewSearcher(&runtime.Discovery{Index: idx, Operations: []*runtime.Discoverable{{Tool: &runtime.Tool{Name: "list_pods", Op: &runtime.Operation{OperationID: "listPods"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if hits := s.Search("show the pods", 5); len(hits) != 1 || !strings.HasPrefix(idx, "oa2mcp-index-v1 1\n") {
		t.Errorf("hits %v for index:\n%s", hits, idx)
	}
}
